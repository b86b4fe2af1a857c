# Cross-check of Math/bitwise_and_binomial against KernelBenchX's PyTorch function (tools/crosscheck.py).
# call = None: the function returns a Binomial sample from PyTorch's generator; this task fixes the draw
# with kbx/rng.h instead, so no element can match PyTorch's sample (only the law is the same).
call = None

# Cross-check of Random/rand against KernelBenchX's PyTorch function (tools/crosscheck.py).
# None: torch.rand draws from PyTorch's own Philox stream (its offsets and layout), which no kbx
# kernel reproduces and the task does not ask for; the outputs cannot be compared elementwise. The
# task is checked by the distribution verifier instead (range, mean, variance, KS test, seed
# behaviour), see [verifier] in task.ini.
call = None

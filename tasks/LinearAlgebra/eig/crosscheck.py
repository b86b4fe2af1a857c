# Cross-check of LinearAlgebra/eig against KernelBenchX's PyTorch function (tools/crosscheck.py).
# call = None: torch.linalg.eig's outputs are unique only up to the order of the eigenvalues and
# a complex phase per eigenvector (any unit vector of an eigenspace for a repeated eigenvalue),
# so tools/crosscheck.py, which compares element by element, cannot compare them with kbx's.
# kbx verifies eig by its properties instead (verifier = property, core/verify.c: residual
# |A v - l v|, the eigenvalues as a set against the f64 reference's, unit-norm eigenvectors).
call = None

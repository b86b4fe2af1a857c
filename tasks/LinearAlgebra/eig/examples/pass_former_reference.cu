// @kbx expect pass
// The former reference, replaced on 2026-12-01 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// eig reference: eigenvalues and eigenvectors of a general real matrix, all in f64, in the classic
// dense order (EISPACK orthes + hqr2, as in the public-domain JAMA EigenvalueDecomposition; this
// is a rewrite of the algorithm, not of that code):
//
//   1. eig_hessenberg (cooperative, all SMs): A = Q H Q^T, H upper Hessenberg, by n - 2
//      Householder reflections P = I - u u^T / h. Per reflection: block 0 builds u from column
//      m - 1; the left update (I - u u^T / h) H is split into 32-column x 32-row tiles (partial
//      column dots u^T H, a grid barrier, the rank-1 update); the right updates H P and Q P give
//      one warp per row. Q is then stored transposed (zt = Q^T) so that later column rotations
//      of Z become coalesced row operations.
//   2. eig_schur (one block of 512 threads): Francis double-shift QR iteration to the real Schur
//      form T = Z^T A Z (quasi-triangular: 1 x 1 blocks for real eigenvalues, 2 x 2 blocks for
//      complex pairs), Z = Q times every reflector. Deflation test |H[i][i-1]| < eps (|H[i-1][i-1]|
//      + |H[i][i]|) (the negligible entry is then set to 0), exceptional shifts after 10, 30, 40,
//      60, ... iterations without deflation. Each bulge-chasing step k applies a 3 x 3 reflector to
//      rows k..k+2 (phase A, threads along the columns) and to columns k..k+2 (phase B, threads
//      along the rows), with a __syncthreads after each; in phase B thread 0 also computes the
//      next reflector from the rows it updated itself and hands it over in shared memory. Only
//      the active window [m, nn] is updated during the chase: the parts of the full Schur form
//      outside it (rows above m, columns right of nn, all of Z) only receive a fixed sequence of
//      reflectors each, applied after the sweep from a list of the sweep's reflectors (same
//      arithmetic, far fewer memory round trips). The scalar decisions (deflation point l, start
//      m of the double shift) are block-wide max reductions of per-thread tests. Iteration cap:
//      30 max(n, 10) sweeps in total; a matrix that does not converge gets NaN everywhere.
//   3. eig_backsub (one warp per eigenvalue): eigenvectors of T by back substitution, real or
//      complex arithmetic, 2 x 2 solves across the 2 x 2 blocks, a pivot that is exactly 0
//      (a repeated eigenvalue) replaced by eps |H|_1, rescaling if components grow beyond
//      1 / sqrt(eps). Vector e is stored as row e of xt; a complex pair (e, e + 1) stores the
//      real part in row e and the imaginary part in row e + 1.
//   4. eig_backtransform: W = Z X (tiled f64 matrix product; X is upper triangular plus one).
//   5. eig_colscale / eig_write: each vector to unit 2-norm with its largest component real and
//      positive (LAPACK geev's convention for complex vectors), rounded once to complex64.
//      A complex pair (lambda, conj(lambda)) gets conjugate columns; eigenvalue e with Im > 0 comes
//      first. The order is the order of T's diagonal, as LAPACK/MAGMA geev return it.
//
// Accuracy: backward stable in f64 (residuals ~1e-15 |A|); each eigenvalue is then off by its
// condition number times that, each vector by that over the gap to the other eigenvalues. The
// outputs are rounded to complex64 once, so what the verifier sees from the reference is the
// f32 rounding (~6e-8 relative) of the f64 results: in a CPU model of these kernels (threads as
// fibers, random order between barriers) every case of this task and ~500 random matrices up to
// n = 200 (general, symmetric, repeated and zero eigenvalues, repeated complex pairs,
// permutations, triangular, Hessenberg, zero columns, entries of 1e-25 and 1e25) gave residuals
// and eigenvalue errors (vs numpy's f64 eig) below 6e-8 relative to |A|_F, unit norms to 5e-8.
//
// Cost: O(n^3). The Hessenberg step is spread over the GPU (4 grid barriers per column). The QR
// iteration is one block: measured in the CPU model, 1.8 n sweeps and 0.93 n^2 chasing steps
// for uniform(0, 1) and randn matrices (n = 64 .. 512), each step two __syncthreads and a few
// dependent memory round trips (thread 0's next reflector), i.e. about 1e6 steps at n = 1024:
// an estimated 0.5 - 1 s there (not measured on a GPU), several times PyTorch's (MAGMA geev on
// the host: 6 ms at n = 64, 202 ms at n = 1024 on an H200). ev[2n+1] and ev[2n+2] keep the
// numbers of sweeps and of steps.
//
// @kbx scratch h f64 [max(1, n * n)]
// @kbx scratch q f64 [max(1, n * n)]
// @kbx scratch zt f64 [max(1, n * n)]
// @kbx scratch xt f64 [max(1, n * n)]
// @kbx scratch w f64 [max(1, n * n)]
// @kbx scratch hv f64 [n + 2]
// @kbx scratch part f64 [max(1, cdiv(n, 32) * n)]
// @kbx scratch rl f64 [max(1, 6 * n)]
// @kbx scratch ev f64 [2 * n + 3]
// @kbx scratch cs f64 [max(1, 2 * n)]
// @kbx scratch info i32 [1]
// @kbx launch eig_hessenberg<<<sms, 256>>>(a, h, q, zt, hv, part, n) cooperative
// @kbx launch eig_schur<<<1, 512>>>(h, zt, rl, ev, info, n)
// @kbx launch eig_backsub<<<max(1, cdiv(n, 8)), 256>>>(h, ev, info, xt, n)
// @kbx launch eig_backtransform<<<dim3(max(1, cdiv(n, 32)), max(1, cdiv(n, 32))), 256>>>(zt, xt, w, n)
// @kbx launch eig_colscale<<<max(1, cdiv(n, 256)), 256>>>(w, ev, info, cs, n)
// @kbx launch eig_write<<<max(1, cdiv(n * n, 256)), 256>>>(w, ev, info, cs, eigenvalues, eigenvectors, n)

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef HESS_THREADS
#define HESS_THREADS 256
#endif
#ifndef SCHUR_THREADS
#define SCHUR_THREADS 512
#endif
#define FULL 0xffffffffu
#define EPS 2.220446049250313e-16 // f64 machine epsilon, 2^-52
#define TILE_ROWS 32              // rows per partial column dot in the Householder left update

__device__ __forceinline__ double warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(FULL, v, off);
	return v;
}

__device__ __forceinline__ int warp_max_int(int v)
{
	for (int off = 16; off > 0; off >>= 1) {
		int o = __shfl_xor_sync(FULL, v, off);
		v = o > v ? o : v;
	}
	return v;
}

// Sum over the block (every thread gets it); red holds blockDim.x / 32 doubles.
__device__ double block_sum(double v, double* red)
{
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
	v = warp_sum(v);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	double s = 0.0;
	for (int i = 0; i < nw; i++)
		s += red[i];
	__syncthreads();
	return s;
}

// Maximum over the block (every thread gets it); red holds blockDim.x / 32 ints.
__device__ int block_max_int(int v, int* red)
{
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
	v = warp_max_int(v);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	int s = red[0];
	for (int i = 1; i < nw; i++)
		s = red[i] > s ? red[i] : s;
	__syncthreads();
	return s;
}

// ------------------------------------------------------------------------------------------------
// 1. Hessenberg reduction, Q accumulated; zt = Q^T at the end.
//    hv[m..n-1] = u of the current reflection, hv[n] = h (0: column already reduced, skip).
extern "C" __global__ void __launch_bounds__(HESS_THREADS, 1)
eig_hessenberg(const float* __restrict__ a, double* __restrict__ H, double* __restrict__ Q, double* __restrict__ Zt,
	       double* __restrict__ hv, double* __restrict__ part, long long n)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double s_red[HESS_THREADS / 32];
	const int tid = threadIdx.x, lane = tid % 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + tid;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long gwarp = gtid / 32, nwarps = gstride / 32;

	for (long long i = gtid; i < n * n; i += gstride) {
		H[i] = (double)a[i];
		Q[i] = (i / n == i % n) ? 1.0 : 0.0;
	}
	grid.sync();

	for (long long m = 1; m + 1 < n; m++) {
		const long long len = n - m; // rows and columns m .. n-1
		// --- block 0: the reflection that zeroes H[m+1 .., m-1] ---
		if (blockIdx.x == 0) {
			double t = 0.0;
			for (long long i = m + tid; i < n; i += blockDim.x)
				t += fabs(H[i * n + m - 1]);
			const double scale = block_sum(t, s_red);
			if (scale == 0.0) {
				if (tid == 0)
					hv[n] = 0.0;
			} else {
				t = 0.0;
				for (long long i = m + tid; i < n; i += blockDim.x) {
					const double u = H[i * n + m - 1] / scale;
					hv[i] = u;
					t += u * u;
				}
				const double sigma = block_sum(t, s_red); // also orders hv[] before thread 0 reads hv[m]
				if (tid == 0) {
					const double um = hv[m];
					const double g = um > 0.0 ? -sqrt(sigma) : sqrt(sigma);
					hv[n] = sigma - um * g;
					hv[m] = um - g;
					H[m * n + m - 1] = scale * g;
				}
				for (long long i = m + 1 + tid; i < n; i += blockDim.x)
					H[i * n + m - 1] = 0.0;
			}
		}
		grid.sync();
		const double hh = hv[n];
		const long long ntile = (len + 31) / 32, nchunk = (len + TILE_ROWS - 1) / TILE_ROWS;
		// --- left update, pass 1: part[c][j] = sum over rows of chunk c of u_i H[i][j] ---
		if (hh != 0.0) {
			for (long long unit = gwarp; unit < ntile * nchunk; unit += nwarps) {
				const long long j = m + (unit % ntile) * 32 + lane;
				const long long c = unit / ntile;
				const long long i0 = m + c * TILE_ROWS, i1 = min(n, i0 + TILE_ROWS);
				if (j < n) {
					double s = 0.0;
					for (long long i = i0; i < i1; i++)
						s += hv[i] * H[i * n + j];
					part[c * n + j] = s;
				}
			}
		}
		grid.sync();
		// --- left update, pass 2: H[i][j] -= (u^T H[:, j] / h) u_i ---
		if (hh != 0.0) {
			for (long long unit = gwarp; unit < ntile * nchunk; unit += nwarps) {
				const long long j = m + (unit % ntile) * 32 + lane;
				const long long c = unit / ntile;
				const long long i0 = m + c * TILE_ROWS, i1 = min(n, i0 + TILE_ROWS);
				if (j < n) {
					double f = 0.0;
					for (long long cc = 0; cc < nchunk; cc++)
						f += part[cc * n + j];
					f /= hh;
					for (long long i = i0; i < i1; i++)
						H[i * n + j] -= f * hv[i];
				}
			}
		}
		grid.sync();
		// --- right updates H P and Q P: one warp per row (rows of H, then rows of Q) ---
		if (hh != 0.0) {
			for (long long r = gwarp; r < 2 * n; r += nwarps) {
				double* row = r < n ? H + r * n : Q + (r - n) * n;
				double s = 0.0;
				for (long long j = m + lane; j < n; j += 32)
					s += row[j] * hv[j];
				s = warp_sum(s) / hh;
				for (long long j = m + lane; j < n; j += 32)
					row[j] -= s * hv[j];
			}
		}
		grid.sync();
	}
	for (long long i = gtid; i < n * n; i += gstride)
		Zt[(i % n) * n + i / n] = Q[i];
}

// ------------------------------------------------------------------------------------------------
// 2. Real Schur form by Francis double-shift QR.

// Reflector of one bulge-chasing step, as hqr2 defines it: with (p, q, r) scaled and s = sign(p)
// |(p, q, r)|, P = I - w v^T with v = (1, q', r'), w = (x, y, z) (x = (p + s) / s, y = q / s,
// z = r / s, q' = q / (p + s), r' = r / (p + s)). Rows: t = a + q' b + r' c, (a, b, c) -= t (x, y, z);
// columns: t = x a + y b + z c, (a, b, c) -= t (1, q', r'). Stored as 6 doubles: valid, x, y, z, q', r'.
struct refl {
	double valid, x, y, z, q, r;
};

// From (p, q, r) of column k - 1 (scaled here) or of the shift polynomial (already scaled).
// colval: what H[k][k-1] becomes (-s * scale); returns the reflector (valid = 0 if none).
__device__ refl make_refl(double p, double q, double r, bool rescale, double* colval)
{
	refl f = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
	double scale = 1.0;
	if (rescale) {
		scale = fabs(p) + fabs(q) + fabs(r);
		if (scale == 0.0)
			return f;
		p /= scale;
		q /= scale;
		r /= scale;
	}
	double s = sqrt(p * p + q * q + r * r);
	if (p < 0.0)
		s = -s;
	if (s == 0.0)
		return f;
	*colval = -s * scale;
	p += s;
	f.valid = 1.0;
	f.x = p / s;
	f.y = q / s;
	f.z = r / s;
	f.q = q / p;
	f.r = r / p;
	return f;
}

__device__ __forceinline__ refl load_refl(const double* rl, long long k)
{
	refl f = { rl[6 * k], rl[6 * k + 1], rl[6 * k + 2], rl[6 * k + 3], rl[6 * k + 4], rl[6 * k + 5] };
	return f;
}

// Applies a sweep's reflectors k = m .. nn-1 (list rl) in order to one vector c[m * stride] ..
// c[nn * stride] outside the chased window: a column of H right of it (ROWFORM: the row
// reflections), a row of H above it or a column of Z (the column reflections). Each element is
// loaded and stored once; AHEAD elements are loaded ahead so that the chain does not wait one
// memory latency per reflector.
#define AHEAD 8
template <bool ROWFORM>
__device__ void apply_sweep(double* c, long long stride, const double* rl, long long m, long long nn)
{
	double u0 = c[m * stride], u1 = c[(m + 1) * stride];
	for (long long k0 = m; k0 <= nn - 1; k0 += AHEAD) {
		double v[AHEAD];
#pragma unroll
		for (int d = 0; d < AHEAD; d++) // row k+2 enters at step k (untouched by this sweep before)
			v[d] = k0 + d + 2 <= nn ? c[(k0 + d + 2) * stride] : 0.0;
#pragma unroll
		for (int d = 0; d < AHEAD; d++) {
			const long long k = k0 + d;
			if (k <= nn - 1) {
				const refl f = load_refl(rl, k);
				const bool notlast = k != nn - 1;
				double u2 = v[d];
				if (f.valid != 0.0) {
					if (ROWFORM) {
						const double p = u0 + f.q * u1 + (notlast ? f.r * u2 : 0.0);
						u0 -= p * f.x;
						u1 -= p * f.y;
						u2 -= p * f.z;
					} else {
						const double p = f.x * u0 + f.y * u1 + (notlast ? f.z * u2 : 0.0);
						u0 -= p;
						u1 -= p * f.q;
						u2 -= p * f.r;
					}
				}
				c[k * stride] = u0; // final for this sweep
				u0 = u1;
				u1 = u2;
			}
		}
	}
	c[nn * stride] = u0;
}

extern "C" __global__ void __launch_bounds__(SCHUR_THREADS)
eig_schur(double* __restrict__ H, double* __restrict__ Zt, double* __restrict__ rl, double* __restrict__ ev,
	  int* __restrict__ info, long long n)
{
	__shared__ double s_red[SCHUR_THREADS / 32];
	__shared__ int s_redi[SCHUR_THREADS / 32];
	__shared__ double s_next[6]; // the reflector of the next chasing step
	const int tid = threadIdx.x;
	const int T = SCHUR_THREADS;
	double* wr = ev;
	double* wi = ev + n;

	// |H|_1 over the Hessenberg part: the deflation test's fallback and the back substitution's
	// replacement for a zero pivot
	double t = 0.0;
	for (long long e = tid; e < n * n; e += T) {
		const long long i = e / n, j = e % n;
		if (j + 1 >= i)
			t += fabs(H[e]);
	}
	const double norm = block_sum(t, s_red);
	if (tid == 0) {
		ev[2 * n] = norm;
		info[0] = 0;
	}

	long long nn = n - 1;
	int iter = 0;
	long long total = 0, steps = 0; // sweeps and chasing steps (kept in ev[2n+1], ev[2n+2])
	const long long cap = 30 * (n > 10 ? n : 10);
	double exshift = 0.0;

	while (nn >= 0) {
		// --- deflation point: largest l <= nn with a negligible H[l][l-1] (0 if none) ---
		int cand = 0;
		for (long long i = 1 + tid; i <= nn; i += T) {
			double s = fabs(H[(i - 1) * n + i - 1]) + fabs(H[i * n + i]);
			if (s == 0.0)
				s = norm;
			const double sub = fabs(H[i * n + i - 1]);
			if (sub < EPS * s || sub == 0.0) // (== 0: H = 0 makes s = norm = 0)
				cand = (int)i;
		}
		const long long l = block_max_int(cand, s_redi);
		if (l > 0 && tid == 0)
			H[l * n + l - 1] = 0.0;

		if (l == nn) { // one real root
			if (tid == 0) {
				H[nn * n + nn] += exshift;
				wr[nn] = H[nn * n + nn];
				wi[nn] = 0.0;
			}
			nn -= 1;
			iter = 0;
			__syncthreads();
			continue;
		}
		if (l == nn - 1) { // a 2 x 2 block: two real roots (triangularized) or a complex pair
			if (tid == 0) {
				H[nn * n + nn] += exshift;
				H[(nn - 1) * n + nn - 1] += exshift;
			}
			__syncthreads();
			const double w = H[nn * n + nn - 1] * H[(nn - 1) * n + nn];
			const double p = (H[(nn - 1) * n + nn - 1] - H[nn * n + nn]) / 2.0;
			const double q = p * p + w;
			double z = sqrt(fabs(q));
			const double x = H[nn * n + nn];
			if (q >= 0.0) {
				z = p >= 0.0 ? p + z : p - z;
				const double xs = H[nn * n + nn - 1];
				const double s = fabs(xs) + fabs(z);
				double pp = xs / s, qq = z / s;
				const double r = sqrt(pp * pp + qq * qq);
				pp /= r;
				qq /= r;
				__syncthreads(); // everyone has read the 2 x 2 block
				if (tid == 0) {
					wr[nn - 1] = x + z;
					wr[nn] = z != 0.0 ? x - w / z : x + z;
					wi[nn - 1] = 0.0;
					wi[nn] = 0.0;
				}
				// rows nn-1, nn (columns nn-1 .. n-1) and the same rotation of Z's columns
				for (long long j = nn - 1 + tid; j < n; j += T) {
					const double zz = H[(nn - 1) * n + j];
					H[(nn - 1) * n + j] = qq * zz + pp * H[nn * n + j];
					H[nn * n + j] = qq * H[nn * n + j] - pp * zz;
				}
				for (long long i = tid; i < n; i += T) {
					const double zz = Zt[(nn - 1) * n + i];
					Zt[(nn - 1) * n + i] = qq * zz + pp * Zt[nn * n + i];
					Zt[nn * n + i] = qq * Zt[nn * n + i] - pp * zz;
				}
				__syncthreads();
				// columns nn-1, nn (rows 0 .. nn)
				for (long long i = tid; i <= nn; i += T) {
					const double zz = H[i * n + nn - 1];
					H[i * n + nn - 1] = qq * zz + pp * H[i * n + nn];
					H[i * n + nn] = qq * H[i * n + nn] - pp * zz;
				}
				__syncthreads();
				if (tid == 0)
					H[nn * n + nn - 1] = 0.0; // rounding left by the rotation
			} else if (tid == 0) {
				wr[nn - 1] = x + p;
				wr[nn] = x + p;
				wi[nn - 1] = z;
				wi[nn] = -z;
			}
			nn -= 2;
			iter = 0;
			__syncthreads();
			continue;
		}

		// --- a double-shift QR sweep over [l, nn] (nn - l >= 2) ---
		if (total >= cap) {
			if (tid == 0)
				info[0] = 1;
			break;
		}
		double x = H[nn * n + nn];
		double y = H[(nn - 1) * n + nn - 1];
		double w = H[nn * n + nn - 1] * H[(nn - 1) * n + nn];
		if (iter % 30 == 10 || (iter > 0 && iter % 30 == 0)) { // exceptional shifts
			double sh;
			if (iter % 30 == 10) { // Wilkinson's ad hoc shift
				sh = x;
				const double s = fabs(H[nn * n + nn - 1]) + fabs(H[(nn - 1) * n + nn - 2]);
				x = y = 0.75 * s;
				w = -0.4375 * s * s;
			} else { // MATLAB's ad hoc shift
				double s = (y - x) / 2.0;
				s = s * s + w;
				sh = 0.0;
				if (s > 0.0) {
					s = sqrt(s);
					if (y < x)
						s = -s;
					sh = x - w / ((y - x) / 2.0 + s);
					x = y = w = 0.964;
				}
			}
			__syncthreads(); // everyone has read the diagonal
			if (sh != 0.0) {
				exshift += sh;
				for (long long i = tid; i <= nn; i += T)
					H[i * n + i] -= sh;
			}
			__syncthreads();
		}
		iter++;
		total++;

		// start of the double shift: largest m in [l + 1, nn - 2] where the two subdiagonal
		// entries H[m][m-1] and (the bulge's) are small together, else l
		int mc = (int)l;
		for (long long mm = l + 1 + tid; mm <= nn - 2; mm += T) {
			const double zd = H[mm * n + mm];
			const double r0 = x - zd, s0 = y - zd;
			double p = (r0 * s0 - w) / H[(mm + 1) * n + mm] + H[mm * n + mm + 1];
			double q = H[(mm + 1) * n + mm + 1] - zd - r0 - s0;
			double r = H[(mm + 2) * n + mm + 1];
			const double s = fabs(p) + fabs(q) + fabs(r);
			p /= s;
			q /= s;
			r /= s;
			if (fabs(H[mm * n + mm - 1]) * (fabs(q) + fabs(r)) <
			    EPS * (fabs(p) * (fabs(H[(mm - 1) * n + mm - 1]) + fabs(zd) + fabs(H[(mm + 1) * n + mm + 1]))))
				mc = (int)mm;
		}
		const long long m = block_max_int(mc, s_redi);
		steps += nn - m;
		if (tid == 0) {
			const double zd = H[m * n + m];
			const double r0 = x - zd, s0 = y - zd;
			double p = (r0 * s0 - w) / H[(m + 1) * n + m] + H[m * n + m + 1];
			double q = H[(m + 1) * n + m + 1] - zd - r0 - s0;
			double r = H[(m + 2) * n + m + 1];
			const double s = fabs(p) + fabs(q) + fabs(r);
			double colval = 0.0;
			const refl f = make_refl(p / s, q / s, r / s, false, &colval);
			if (f.valid != 0.0 && l != m)
				H[m * n + m - 1] = -H[m * n + m - 1];
			s_next[0] = f.valid;
			s_next[1] = f.x;
			s_next[2] = f.y;
			s_next[3] = f.z;
			s_next[4] = f.q;
			s_next[5] = f.r;
		}
		__syncthreads();

		for (long long k = m; k <= nn - 1; k++) {
			const bool notlast = k != nn - 1;
			const refl f = { s_next[0], s_next[1], s_next[2], s_next[3], s_next[4], s_next[5] };
			// phase A: rows k .. k+2, columns k .. nn; thread 0 records the reflector
			if (f.valid != 0.0) {
				for (long long j = k + tid; j <= nn; j += T) {
					double* c = H + k * n + j;
					if (notlast) {
						const double p = c[0] + f.q * c[n] + f.r * c[2 * n];
						c[0] -= p * f.x;
						c[n] -= p * f.y;
						c[2 * n] -= p * f.z;
					} else {
						const double p = c[0] + f.q * c[n];
						c[0] -= p * f.x;
						c[n] -= p * f.y;
					}
				}
			}
			if (tid == 0) {
				rl[6 * k] = f.valid;
				rl[6 * k + 1] = f.x;
				rl[6 * k + 2] = f.y;
				rl[6 * k + 3] = f.z;
				rl[6 * k + 4] = f.q;
				rl[6 * k + 5] = f.r;
			}
			__syncthreads();
			// phase B: columns k .. k+2, rows m .. min(nn, k+3). Thread 0 takes rows k+1 .. k+3,
			// whose column k holds the next reflector's (p, q, r), and builds it.
			if (f.valid != 0.0) {
				for (long long i = m + tid - 1; tid > 0 && i <= k; i += T - 1) {
					double* c = H + i * n + k;
					if (notlast) {
						const double p = f.x * c[0] + f.y * c[1] + f.z * c[2];
						c[0] -= p;
						c[1] -= p * f.q;
						c[2] -= p * f.r;
					} else {
						const double p = f.x * c[0] + f.y * c[1];
						c[0] -= p;
						c[1] -= p * f.q;
					}
				}
			}
			if (tid == 0) {
				const long long last = min(nn, k + 3);
				double c0[3] = { 0.0, 0.0, 0.0 }, c1[3] = { 0.0, 0.0, 0.0 }, c2[3] = { 0.0, 0.0, 0.0 };
#pragma unroll
				for (int d = 0; d < 3; d++) { // rows k+1+d, columns k .. k+2 (registers: constant d)
					if (k + 1 + d <= last) {
						const double* c = H + (k + 1 + d) * n + k;
						c0[d] = c[0];
						c1[d] = c[1];
						c2[d] = notlast ? c[2] : 0.0;
						if (f.valid != 0.0) {
							const double p = f.x * c0[d] + f.y * c1[d] + (notlast ? f.z * c2[d] : 0.0);
							c0[d] -= p;
							c1[d] -= p * f.q;
							c2[d] -= p * f.r;
						}
					}
				}
				refl g = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
				if (k + 1 <= nn - 1) { // the next step's reflector, from column k
					const bool nl = k + 1 != nn - 1;
					double colval = 0.0;
					g = make_refl(c0[0], c0[1], nl ? c0[2] : 0.0, true, &colval);
					if (g.valid != 0.0) {
						c0[0] = colval;
						c0[1] = 0.0;
						c0[2] = 0.0;
					}
				}
#pragma unroll
				for (int d = 0; d < 3; d++) {
					if (k + 1 + d <= last) {
						double* c = H + (k + 1 + d) * n + k;
						c[0] = c0[d];
						if (f.valid != 0.0) {
							c[1] = c1[d];
							if (notlast)
								c[2] = c2[d];
						}
					}
				}
				s_next[0] = g.valid;
				s_next[1] = g.x;
				s_next[2] = g.y;
				s_next[3] = g.z;
				s_next[4] = g.q;
				s_next[5] = g.r;
			}
			__syncthreads();
		}

		// --- the sweep's reflectors on the rest of the Schur form and on Z ---
		// (a) rows 0 .. m-1 of H, columns m .. nn (column form, along the row)
		// (b) columns nn+1 .. n-1 of H, rows m .. nn (row form, down the column)
		// (c) rows m .. nn of Zt, i.e. columns m .. nn of Z (column form, one thread per Z row)
		const long long na = m, nb = n - 1 - nn, nc = n;
		for (long long job = tid; job < na + nb + nc; job += T) {
			if (job < na)
				apply_sweep<false>(H + job * n, 1, rl, m, nn);
			else if (job < na + nb)
				apply_sweep<true>(H + nn + 1 + (job - na), n, rl, m, nn);
			else
				apply_sweep<false>(Zt + (job - na - nb), n, rl, m, nn);
		}
		__syncthreads();
	}
	if (tid == 0) {
		ev[2 * n + 1] = (double)total;
		ev[2 * n + 2] = (double)steps;
	}
}

// ------------------------------------------------------------------------------------------------
// 3. Eigenvectors of the quasi-triangular T by back substitution, one warp per eigenvalue.

__device__ __forceinline__ void cdiv(double ar, double ai, double br, double bi, double* cr, double* ci)
{
	// (ar + i ai) / (br + i bi), Smith's scaling
	if (fabs(br) >= fabs(bi)) {
		const double r = bi / br, d = br + r * bi;
		*cr = (ar + r * ai) / d;
		*ci = (ai - r * ar) / d;
	} else {
		const double r = br / bi, d = bi + r * br;
		*cr = (r * ar + ai) / d;
		*ci = (r * ai - ar) / d;
	}
}

extern "C" __global__ void __launch_bounds__(256)
eig_backsub(const double* __restrict__ T, const double* __restrict__ ev, const int* __restrict__ info,
	    double* __restrict__ Xt, long long n)
{
	const int lane = threadIdx.x % 32;
	const long long e = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (e >= n || info[0] != 0)
		return;
	const double* wr = ev;
	const double* wi = ev + n;
	const double lr = wr[e], li = wi[e];
	if (li < 0.0)
		return; // the second of a complex pair: written by warp e - 1
	double small = EPS * ev[2 * n];
	if (small == 0.0)
		small = 1e-300; // T = 0: every right-hand side is 0 as well
	const bool cplx = li > 0.0;
	const long long top = cplx ? e + 1 : e; // the highest nonzero component
	double* xr = Xt + e * n;
	double* xi = cplx ? Xt + (e + 1) * n : nullptr;

	for (long long j = top + 1 + lane; j < n; j += 32) {
		xr[j] = 0.0;
		if (cplx)
			xi[j] = 0.0;
	}
	long long i;
	if (!cplx) {
		if (lane == 0)
			xr[e] = 1.0;
		i = e - 1;
	} else {
		// the 2 x 2 block [[a, b], [c, d]] at (e, e+1): its eigenvector for lr + i li
		const double a = T[e * n + e], b = T[e * n + e + 1], c = T[(e + 1) * n + e], d = T[(e + 1) * n + e + 1];
		double y0r, y0i, y1r, y1i;
		if (fabs(c) >= fabs(b)) { // y = ((lambda - d) / c, 1)
			y0r = (lr - d) / c;
			y0i = li / c;
			y1r = 1.0;
			y1i = 0.0;
		} else { // y = (1, (lambda - a) / b)
			y0r = 1.0;
			y0i = 0.0;
			y1r = (lr - a) / b;
			y1i = li / b;
		}
		if (lane == 0) {
			xr[e] = y0r;
			xi[e] = y0i;
			xr[e + 1] = y1r;
			xi[e + 1] = y1i;
		}
		i = e - 1;
	}
	__syncwarp();

	while (i >= 0) {
		const bool pair = i > 0 && wi[i] < 0.0; // rows (i-1, i) form a 2 x 2 block
		const long long i0 = pair ? i - 1 : i;
		// r_k = sum over j in (i, top] of T[k][j] x_j for the row(s) k of this block
		double r1r = 0.0, r1i = 0.0, r0r = 0.0, r0i = 0.0;
		for (long long j = i + 1 + lane; j <= top; j += 32) {
			const double vr = xr[j], vi = cplx ? xi[j] : 0.0;
			r1r += T[i * n + j] * vr;
			r1i += T[i * n + j] * vi;
			if (pair) {
				r0r += T[i0 * n + j] * vr;
				r0i += T[i0 * n + j] * vi;
			}
		}
		r1r = warp_sum(r1r);
		r1i = warp_sum(r1i);
		r0r = warp_sum(r0r);
		r0i = warp_sum(r0i);
		double x0r = 0.0, x0i = 0.0, x1r, x1i;
		if (!pair) {
			// (T[i][i] - lambda) x_i = -r
			double dr = T[i * n + i] - lr, di = -li;
			if (dr == 0.0 && di == 0.0)
				dr = small;
			cdiv(-r1r, -r1i, dr, di, &x1r, &x1i);
		} else {
			// [[a - lambda, b], [c, d - lambda]] (x_{i-1}, x_i) = -(r0, r1), Cramer's rule
			const double ar = T[i0 * n + i0] - lr, b = T[i0 * n + i], c = T[i * n + i0], dr = T[i * n + i] - lr;
			double detr = ar * dr - li * li - b * c, deti = -li * (ar + dr);
			if (detr == 0.0 && deti == 0.0)
				detr = small;
			// x0 = (-r0 (d - lambda) + r1 b) / det, x1 = (-r1 (a - lambda) + r0 c) / det
			const double n0r = -(r0r * dr + r0i * li) + r1r * b;
			const double n0i = -(r0i * dr - r0r * li) + r1i * b;
			const double n1r = -(r1r * ar + r1i * li) + r0r * c;
			const double n1i = -(r1i * ar - r1r * li) + r0i * c;
			cdiv(n0r, n0i, detr, deti, &x0r, &x0i);
			cdiv(n1r, n1i, detr, deti, &x1r, &x1i);
		}
		if (lane == 0) {
			xr[i] = x1r;
			if (cplx)
				xi[i] = x1i;
			if (pair) {
				xr[i0] = x0r;
				if (cplx)
					xi[i0] = x0i;
			}
		}
		// keep the components below 1 / sqrt(eps) (overflow guard, as hqr2)
		const double tmax = fmax(fmax(fabs(x1r), fabs(x1i)), fmax(fabs(x0r), fabs(x0i)));
		if (EPS * tmax * tmax > 1.0) {
			__syncwarp();
			for (long long j = i0 + lane; j <= top; j += 32) {
				xr[j] /= tmax;
				if (cplx)
					xi[j] /= tmax;
			}
		}
		__syncwarp();
		i = i0 - 1;
	}
}

// ------------------------------------------------------------------------------------------------
// 4. W = Z X: W[r][e] = sum_j Zt[j][r] Xt[e][j], 32 x 32 tiles, 4 outputs per thread.
extern "C" __global__ void __launch_bounds__(256)
eig_backtransform(const double* __restrict__ Zt, const double* __restrict__ Xt, double* __restrict__ W, long long n)
{
	__shared__ double zs[32][33];
	__shared__ double xs[32][33];
	const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
	const long long r0 = (long long)blockIdx.y * 32, e0 = (long long)blockIdx.x * 32;
	if (r0 >= n || e0 >= n)
		return;
	// X's column e has no components beyond e + 1
	const long long jend = min(n, e0 + 32 + 1);
	double acc[4] = { 0.0, 0.0, 0.0, 0.0 };
	for (long long j0 = 0; j0 < jend; j0 += 32) {
		for (int q = 0; q < 4; q++) {
			const int rr = ty + 8 * q;
			const long long j = j0 + rr;
			zs[rr][tx] = (j < n && r0 + tx < n) ? Zt[j * n + r0 + tx] : 0.0;
			xs[rr][tx] = (e0 + rr < n && j0 + tx < n) ? Xt[(e0 + rr) * n + j0 + tx] : 0.0;
		}
		__syncthreads();
		for (int jj = 0; jj < 32; jj++) {
			const double xv = xs[tx][jj];
			for (int q = 0; q < 4; q++)
				acc[q] += zs[jj][ty + 8 * q] * xv;
		}
		__syncthreads();
	}
	for (int q = 0; q < 4; q++) {
		const long long r = r0 + ty + 8 * q, e = e0 + tx;
		if (r < n && e < n)
			W[r * n + e] = acc[q];
	}
}

// ------------------------------------------------------------------------------------------------
// 5. Per eigenvector the factor that gives unit norm and a real positive largest component:
//    cs[2e] + i cs[2e+1]. One thread per column (coalesced along the rows of W).
extern "C" __global__ void __launch_bounds__(256)
eig_colscale(const double* __restrict__ W, const double* __restrict__ ev, const int* __restrict__ info,
	     double* __restrict__ cs, long long n)
{
	const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= n || info[0] != 0)
		return;
	const double li = ev[n + e];
	if (li < 0.0)
		return; // set with its partner e - 1
	double s2 = 0.0, best = -1.0, br = 1.0, bi = 0.0;
	for (long long r = 0; r < n; r++) {
		const double vr = W[r * n + e], vi = li > 0.0 ? W[r * n + e + 1] : 0.0;
		const double m2 = vr * vr + vi * vi;
		s2 += m2;
		if (m2 > best) {
			best = m2;
			br = vr;
			bi = vi;
		}
	}
	// factor = conj(v_k) / (|v_k| |v|)
	const double mk = sqrt(best), nv = sqrt(s2);
	const double fr = br / (mk * nv), fi = -bi / (mk * nv);
	cs[2 * e] = fr;
	cs[2 * e + 1] = fi;
	if (li > 0.0) {
		cs[2 * e + 2] = fr;
		cs[2 * e + 3] = -fi;
	}
}

// ------------------------------------------------------------------------------------------------
// 6. The c64 outputs: eigenvectors[r][e], eigenvalues[e] (NaN everywhere if the QR iteration
//    did not converge).
extern "C" __global__ void __launch_bounds__(256)
eig_write(const double* __restrict__ W, const double* __restrict__ ev, const int* __restrict__ info,
	  const double* __restrict__ cs, float2* __restrict__ eigenvalues, float2* __restrict__ eigenvectors,
	  long long n)
{
	const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= n * n)
		return;
	const long long r = idx / n, e = idx % n;
	if (info[0] != 0) {
		const float nanf = __int_as_float(0x7fffffff);
		eigenvectors[idx] = make_float2(nanf, nanf);
		if (r == 0)
			eigenvalues[e] = make_float2(nanf, nanf);
		return;
	}
	const double li = ev[n + e];
	double vr, vi;
	if (li == 0.0) {
		vr = W[idx];
		vi = 0.0;
	} else if (li > 0.0) {
		vr = W[idx];
		vi = W[idx + 1];
	} else {
		vr = W[idx - 1];
		vi = -W[idx];
	}
	const double fr = cs[2 * e], fi = cs[2 * e + 1];
	eigenvectors[idx] = make_float2((float)(vr * fr - vi * fi), (float)(vr * fi + vi * fr));
	if (r == 0)
		eigenvalues[e] = make_float2((float)ev[e], (float)li);
}

// @kbx expect pass
// Correct alternative: the same Cephes scheme evaluated in f64 (Horner in double, double sqrt / exp /
// sincos) and rounded once: within ~1e-15 of Ai, and PyTorch's f32 result is within 0.51 of the tolerance
// of Ai for |x| <= 50 (the cases' range). PyTorch's rules are kept: NaN for +-inf, 0 above 103.892.
// @kbx launch airy_ai_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

__constant__ double AN[8] = {3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
			     1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
			     1.40264691163389668864e+01, 9.99999999999999995305e-01};
__constant__ double AD[8] = {5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
			     1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
			     1.40959135607834029598e+01, 1.00000000000000000470e+00};
__constant__ double AFN[9] = {-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
			      -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
			      -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08};
__constant__ double AFD[9] = {1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
			      9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
			      4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07};
__constant__ double AGN[11] = {1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
			       9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
			       5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
			       8.11789239554389293311e-08, 3.41551784765923618484e-10};
__constant__ double AGD[10] = {9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
			       5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
			       4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
			       4.91834570062930015649e-09};

__device__ double horner(double z, const double *c, int len)
{
	double r = 0.0;
	for (int i = 0; i < len; i++)
		r = r * z + c[i];
	return r;
}

__device__ double airy_d(double x)
{
	const double rsqrtpi = 5.64189583547756286948e-01;
	if (x < -2.09) {
		double zeta = 2.0 / 3.0 * (-x) * sqrt(-x);
		double z = 1.0 / zeta, zz = z * z;
		double s, c;
		sincos(zeta + 0.78539816339744830962, &s, &c);
		return rsqrtpi / sqrt(sqrt(-x)) *
		       (s * (1.0 + zz * horner(zz, AFN, 9) / horner(zz, AFD, 9)) - c * z * horner(zz, AGN, 11) / horner(zz, AGD, 10));
	}
	if (x >= 2.09) {
		double zeta = 2.0 / 3.0 * x * sqrt(x);
		double iz = 1.0 / zeta;
		return rsqrtpi * horner(iz, AN, 8) / horner(iz, AD, 8) / (2.0 * sqrt(sqrt(x)) * exp(zeta));
	}
	double z = x * x * x, f = 1.0, g = x, m = 1.0, t = x;
	for (int k = 1; k < 60; k += 3) {
		m *= z / ((k + 1.0) * (k + 2.0));
		t *= z / ((k + 2.0) * (k + 3.0));
		f += m;
		g += t;
		if (fabs(m) < 1e-18 * fabs(f) && fabs(t) < 1e-18 * fabs(g) + 1e-300)
			break;
	}
	return 0.355028053887817239260 * f - 0.258819403792806798405 * g;
}

extern "C" __global__ void airy_ai_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (isinf(v))
		y[i] = __int_as_float(0x7fc00000);
	else if (v > 103.892f)
		y[i] = 0.0f;
	else
		y[i] = (float)airy_d((double)v);
}

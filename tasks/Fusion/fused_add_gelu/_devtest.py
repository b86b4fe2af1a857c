# temporary device harness (deleted after use): runs reference.cu / examples like kbx would
import sys, os, re, ast, math, json, time, glob, traceback
import numpy as np, torch, cupy as cp
import torch.nn.functional as F
INC = os.path.abspath('tasks/include')
SMS = torch.cuda.get_device_properties(0).multi_processor_count
torch.backends.cuda.matmul.allow_tf32 = False
OUT = os.environ.get('OUT', '/tmp')
LOG = []
def log(*a):
    s = ' '.join(str(x) for x in a); print(s, flush=True); LOG.append(s)

def read_ini(path):
    secs, order, cur, last = {}, [], None, None
    for raw in open(path).read().split('\n'):
        if not raw.strip(): continue
        if raw[0] in ';#': continue
        if raw[0] in ' \t':
            secs[cur][last] += ' ' + raw.strip(); continue
        line = raw.strip()
        if line.startswith('['):
            cur = line[1:-1]; secs[cur] = {}; order.append(cur); last = None; continue
        if ' ;' in line: line = line[:line.index(' ;')]
        k, v = line.split('=', 1); last = k.strip(); secs[cur][last] = v.strip()
    return secs, order

class DivT(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            return ast.Call(func=ast.Name('__div', ast.Load()), args=[node.left, node.right], keywords=[])
        return node
def _div(a, b):
    if isinstance(a, int) and isinstance(b, int): return int(a / b) if (a < 0) != (b < 0) else a // b
    return a / b
def cdiv(a, b): return (a + b - 1) // b
FUN = dict(cdiv=cdiv, min=min, max=max, __div=_div, sms=SMS, pow2=lambda k: 2 ** k)
def ev(expr, env):
    t = DivT().visit(ast.parse(expr.strip(), mode='eval')); ast.fix_missing_locations(t)
    return eval(compile(t, '<e>', 'eval'), dict(FUN, **env))

def split_top(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([': depth += 1
        if ch in ')]': depth -= 1
        if ch == ',' and depth == 0: out.append(cur.strip()); cur = ''
        else: cur += ch
    if cur.strip(): out.append(cur.strip())
    return out

def expand_list(v, env):
    v = v.strip()
    m = re.fullmatch(r'pow2\((\d+)\.\.(\d+)\)', v)
    if m: return [2 ** i for i in range(int(m[1]), int(m[2]) + 1)]
    m = re.fullmatch(r'range\((\d+)\.\.(\d+):(\d+)\)', v)
    if m: return list(range(int(m[1]), int(m[2]) + 1, int(m[3])))
    parts = split_top(v)
    if len(parts) > 1: return [ev(p, env) for p in parts]
    return None

TD = dict(f32=torch.float32, f64=torch.float64, f16=torch.float16, bf16=torch.bfloat16, i8=torch.int8,
          u8=torch.uint8, i16=torch.int16, i32=torch.int32, i64=torch.int64, bool=torch.uint8)
NPS = dict(i32=np.int32, i64=np.int64, f32=np.float32, f64=np.float64)

def parse_args(sec):
    args = {}
    for k, v in sec.items():
        m = re.fullmatch(r'(in|out|inout)\s+(\w+)\s*\[(.*)\]', v)
        if m: args[k] = ('buf', m[1], m[2], split_top(m[3]))
        else: args[k] = ('scalar', v.strip())
    return args

def gen(spec, shape, dtype, gseed):
    g = torch.Generator(device='cuda'); g.manual_seed(gseed)
    n = int(np.prod(shape)) if shape else 1
    spec = spec.strip()
    name = spec.split('(')[0].strip()
    inner = spec[len(name):].strip()[1:-1] if '(' in spec else ''
    toks = split_top(inner) if inner else []
    def fl(t): return {'nan': math.nan, 'inf': math.inf, '-inf': -math.inf, '-0': -0.0}.get(t, None) if t in ('nan','inf','-inf','-0') else float(ev(t, {}))
    if name == 'randn': x = torch.randn(n, generator=g, device='cuda', dtype=torch.float64)
    elif name == 'uniform': lo, hi = map(fl, toks); x = lo + (hi - lo) * torch.rand(n, generator=g, device='cuda', dtype=torch.float64)
    elif name == 'outlier':
        p, sc = map(fl, toks); x = torch.randn(n, generator=g, device='cuda', dtype=torch.float64)
        mask = torch.rand(n, generator=g, device='cuda') < p
        x[mask] = torch.randn(int(mask.sum()), generator=g, device='cuda', dtype=torch.float64) * sc
    elif name == 'values':
        vals = torch.tensor([fl(t) for t in toks], dtype=torch.float64, device='cuda')
        x = vals.repeat(n // len(vals) + 1)[:n] if n else vals[:0]
    elif name == 'zeros': x = torch.zeros(n, device='cuda', dtype=torch.float64)
    elif name == 'ones': x = torch.ones(n, device='cuda', dtype=torch.float64)
    elif name == 'full': x = torch.full((n,), fl(toks[0]), device='cuda', dtype=torch.float64)
    elif name == 'arange':
        st = fl(toks[0]) if toks else 0.0; sp = fl(toks[1]) if len(toks) > 1 else 1.0
        x = st + sp * torch.arange(n, device='cuda', dtype=torch.float64)
    elif name == 'special':
        pool = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40, -1e-41, 3e38, -3e38, 1e-30, 1e30, -1e20],
                            dtype=torch.float64, device='cuda')
        x = torch.randn(n, generator=g, device='cuda', dtype=torch.float64) * 3
        pick = torch.rand(n, generator=g, device='cuda') < 0.3
        idx = torch.randint(0, len(pool), (n,), generator=g, device='cuda')
        x = torch.where(pick, pool[idx], x)
    elif name == 'diagdom':
        d = fl(toks[0]) if toks else 1.0; nn = shape[-1]
        x = torch.randn(n, generator=g, device='cuda', dtype=torch.float64).reshape(-1, nn, nn)
        x = x + d * nn * torch.eye(nn, device='cuda', dtype=torch.float64)
        x = x.flatten()
    else: raise ValueError('generator ' + spec)
    return x.to(dtype).reshape(shape)

def parse_cu(path):
    src = open(path).read()
    launches, scratch = [], []
    for line in src.split('\n'):
        m = re.match(r'\s*//\s*@kbx launch\s+(\w+)<<<(.*)>>>\((.*)\)\s*(cooperative)?\s*$', line)
        if m: launches.append((m[1], split_top(m[2]), split_top(m[3]), bool(m[4])))
        m = re.match(r'\s*//\s*@kbx scratch\s+(\w+)\s+(\w+)\s*\[(.*)\]', line)
        if m: scratch.append((m[1], m[2], split_top(m[3])))
    exp = re.match(r'//\s*@kbx expect (\w+)', src)
    return src, launches, scratch, exp[1] if exp else None

def dim(expr, env):
    expr = expr.strip()
    if expr.startswith('dim3('):
        t = tuple(int(ev(p, env)) for p in split_top(expr[5:-1])); return t + (1,) * (3 - len(t))
    return (int(ev(expr, env)), 1, 1)

def run_cu(path, args, env, inputs, timing=0):
    src, launches, scratch, _ = parse_cu(path)
    coop = any(l[3] for l in launches)
    opts = ('-std=c++17', '-I' + INC, '-I/usr/local/cuda/include')
    mod = cp.RawModule(code=src, options=opts, enable_cooperative_groups=coop)
    bufs = {}
    for k, a in args.items():
        if a[0] == 'buf':
            shape = [int(ev(s, env)) for s in a[3]]
            if a[1] == 'out':
                t = torch.empty(shape, dtype=TD[a[2]], device='cuda')
                if t.is_floating_point(): t.fill_(float('nan'))
                bufs[k] = t
            else: bufs[k] = inputs[k].clone()
    for name, dt, shp in scratch:
        shape = [int(ev(s, env)) for s in shp]
        t = torch.empty(shape, dtype=TD[dt], device='cuda')
        t.view(torch.uint8).fill_(0xFF) if t.numel() else None
        bufs[name] = t
    calls = []
    for kname, ge, argl, cooperative in launches:
        fn = mod.get_function(kname)
        grid = dim(ge[0], env); block = dim(ge[1], env); shm = int(ev(ge[2], env)) if len(ge) > 2 else 0
        cargs = []
        for a in argl:
            m = re.fullmatch(r'(i32|i64|f32|f64)\((.*)\)', a)
            if m: cargs.append(NPS[m[1]](ev(m[2], env)))
            elif a in bufs: cargs.append(cp.asarray(bufs[a]) if bufs[a].numel() else cp.zeros(1, dtype=cp.uint8))
            elif a in args and args[a][0] == 'scalar': cargs.append(NPS[args[a][1]](env[a]))
            else: raise ValueError('arg ' + a)
        calls.append((fn, grid, block, tuple(cargs), shm, cooperative))
    def go():
        for fn, grid, block, cargs, shm, co in calls:
            fn(grid, block, cargs, shared_mem=shm)
    go(); torch.cuda.synchronize()
    ms = None
    if timing:
        ts = []
        for _ in range(timing):
            e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
            e0.record(); go(); e1.record(); torch.cuda.synchronize(); ts.append(e0.elapsed_time(e1))
            if ts[-1] > 300: break
        ms = sorted(ts)[len(ts) // 2]
    return {k: v for k, v in bufs.items()}, ms

def compare(c, r, tol):
    c = c.double().flatten(); r = r.double().flatten()
    if 'cosine_sim' in tol:
        x, ref = c.float(), r.float()
        xn, rn = torch.linalg.vector_norm(x).item(), torch.linalg.vector_norm(ref).item()
        cos = 1.0 if (xn < 1e-12 and rn < 1e-12) else (0.0 if (xn < 1e-12 or rn < 1e-12) else F.cosine_similarity(x.reshape(1, -1), ref.reshape(1, -1)).item())
        l1 = ((x - ref).abs().sum() / ref.abs().sum().clamp_min(1e-12)).item() if ref.numel() else 0.0
        rmse = torch.sqrt(torch.mean((x - ref) ** 2)).item() if ref.numel() else 0.0
        ok = cos >= float(tol['cosine_sim']) and l1 <= float(tol['l1_relative']) and rmse <= float(tol['rmse'])
        return ok, 'cos=%.6f l1=%.5f rmse=%.5f' % (cos, l1, rmse)
    rtol, atol = float(tol.get('rtol', 1e-5)), float(tol.get('atol', 1e-5))
    both_nan = torch.isnan(c) & torch.isnan(r)
    fin = torch.isfinite(c) & torch.isfinite(r)
    ok = both_nan | (c == r) | (fin & ((c - r).abs() <= atol + rtol * r.abs()))
    nbad = int((~ok).sum())
    d = (c - r).abs()[fin]
    rel = (d / r.abs()[fin].clamp_min(1e-30))
    info = 'bad=%d/%d maxabs=%.3g maxrel=%.3g' % (nbad, c.numel(), d.max().item() if d.numel() else 0, rel.max().item() if rel.numel() else 0)
    if nbad:
        i = int((~ok).nonzero()[0]); info += ' first@%d c=%r r=%r' % (i, c[i].item(), r[i].item())
    return nbad == 0, info

def kbx_gelu(inp, other, alpha, approximate):
    result = inp + alpha * other
    if approximate == 'none': return F.gelu(result)
    return 0.5 * result * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (result + 0.044715 * result ** 3)))

def truth(task, env, ins):
    if task == 'matmul': return 'c', torch.matmul(ins['a'], ins['b'])
    if task == 'conv2d':
        return 'y', F.conv2d(ins['input'], ins['weight'], ins['bias'] if env['has_bias'] else None, env['stride'], env['padding'], env['dilation'], env['groups'])
    if task == 'matmul_w8a8': return 'y', torch.matmul(ins['input'], ins['weight'])
    if task == 'det': return 'd', torch.linalg.det(ins['a'])
    if task == 'fused_add_gelu':
        return 'y', kbx_gelu(ins['input'], ins['other'], float(np.float32(env['alpha'])), 'tanh' if env['approximate'] else 'none')

def truth64(task, env, ins):
    d = {k: v.double() for k, v in ins.items()}
    if task == 'matmul': return torch.matmul(d['a'], d['b'])
    if task == 'conv2d': return F.conv2d(d['input'], d['weight'], d['bias'] if env['has_bias'] else None, env['stride'], env['padding'], env['dilation'], env['groups'])
    if task == 'det': return torch.linalg.det(d['a'])
    if task == 'matmul_w8a8':
        x, w = d['input'], d['weight']
        sx = x.abs().amax(1, keepdim=True) / 127 if x.shape[1] else torch.zeros(x.shape[0], 1, device='cuda', dtype=torch.float64)
        sw = w.abs().amax(0, keepdim=True) / 127 if w.shape[0] else torch.zeros(1, w.shape[1], device='cuda', dtype=torch.float64)
        xq = torch.where(sx > 0, torch.round(x / torch.where(sx > 0, sx, 1)), 0).clamp(-127, 127)
        wq = torch.where(sw > 0, torch.round(w / torch.where(sw > 0, sw, 1)), 0).clamp(-127, 127)
        return (xq @ wq) * sx * sw
    return None

def do_task(tdir, perf=True, only_cases=None):
    task = os.path.basename(tdir)
    secs, order = read_ini(os.path.join(tdir, 'task.ini'))
    args = parse_args(secs['args']); tol = secs['tolerance']; defaults = secs.get('inputs', {})
    log('=' * 20, task, 'tol', tol)
    cases = [s for s in order if s.startswith('case.')]
    exs = sorted(glob.glob(os.path.join(tdir, 'examples', '*.cu')))
    verdicts = {e: [] for e in exs}
    for ci, cname in enumerate(cases):
        sec = secs[cname]; env = {}; gens = dict(defaults)
        for k, v in sec.items():
            if k in args and args[k][0] == 'buf': gens[k] = v
            else: env[k] = ev(v, env)
        ins = {}
        for j, (k, a) in enumerate(args.items()):
            if a[0] == 'buf' and a[1] != 'out':
                shape = [int(ev(s, env)) for s in a[3]]
                ins[k] = gen(gens[k], shape, TD[a[2]], 1000 * ci + j + 7)
        try:
            ref, _ = run_cu(os.path.join(tdir, 'reference.cu'), args, env, ins)
        except Exception as e:
            log(' REF FAIL', cname, repr(e)); traceback.print_exc(); continue
        oname, t = truth(task, env, ins)
        r = ref[oname]
        ok, info = compare(r, t, tol)
        extra = ''
        t64 = truth64(task, env, ins)
        if t64 is not None:
            ok64, info64 = compare(r, t64.float(), tol) if 'cosine_sim' not in tol else compare(r, t64, tol)
            extra = ' | vs f64/emul: ' + ('OK ' if ok64 else 'XX ') + info64
            if task in ('det',):
                extra += ' | torchf32 vs f64: ' + compare(t, t64.float(), {'rtol': 0, 'atol': 0})[1]
        log(' %-32s ref vs torch: %s %s%s' % (cname, 'OK' if ok else 'XX', info, extra))
        if task == 'det': log('    values: ref=%r torch32=%r f64=%r' % (r.item(), t.item(), t64.item()))
        for e in exs:
            try:
                c, _ = run_cu(e, args, env, ins)
                eok, einfo = compare(c[oname], r, tol)
                verdicts[e].append(('pass' if eok else 'wrong', cname, einfo))
            except Exception as ex:
                verdicts[e].append(('runtime_error', cname, repr(ex)[:200]))
    for e in exs:
        exp = parse_cu(e)[3]
        vs = verdicts[e]
        got = 'pass' if all(v[0] == 'pass' for v in vs) else ('runtime_error' if any(v[0] == 'runtime_error' for v in vs) else 'wrong')
        log(' EXAMPLE %-40s expect=%s got=%s' % (os.path.basename(e), exp, got))
        for v in vs:
            if v[0] != 'pass' or got == 'pass': log('     %-14s %-30s %s' % v)
    if perf:
        p = secs['perf']; lists = {}; env = {}
        for k, v in p.items():
            if k in ('bytes', 'flops', 'input_size'): continue
            if k in args and args[k][0] == 'buf': continue
            lv = expand_list(v, env)
            if lv is not None: lists[k] = lv
            else: env[k] = ev(v, env)
        nrows = len(next(iter(lists.values())))
        golden = json.load(open('tasks/golden/h200.json'))['tasks'].get(task, [])
        for i in range(nrows):
            renv = dict(env, **{k: v[i] for k, v in lists.items()})
            ins = {}
            for j, (k, a) in enumerate(args.items()):
                if a[0] == 'buf' and a[1] != 'out':
                    shape = [int(ev(s, renv)) for s in a[3]]
                    ins[k] = gen(p.get(k, defaults.get(k)), shape, TD[a[2]], 99 + j)
            try:
                _, ms = run_cu(os.path.join(tdir, 'reference.cu'), args, renv, ins, timing=3)
            except Exception as e:
                log(' PERF FAIL row', i, repr(e)); break
            fl = ev(p['flops'], renv)
            gms = golden[i]['ms'] if i < len(golden) else None
            log(' perf row %2d %-40s ref %.4f ms  golden %s ms  %.2f TFLOP/s' % (i, ev(p['input_size'], renv), ms, gms, fl / ms / 1e9))
            del ins; torch.cuda.empty_cache()

def det_study():
    torch.manual_seed(0)
    for mode in ('standard', 'outlier'):
        A = torch.randn(200000, 4, 4, device='cuda', dtype=torch.float64)
        if mode == 'outlier':
            mask = torch.rand(A.shape, device='cuda') < 0.02
            A[mask] = torch.randn(int(mask.sum()), device='cuda', dtype=torch.float64) * 20
        A32 = A.float()
        d64 = torch.linalg.det(A32.double()); d32 = torch.linalg.det(A32).double()
        err = (d32 - d64).abs()
        for rtol in (1e-5, 3e-5, 1e-4, 3e-4):
            fail = (err > 1e-5 + rtol * d64.abs()).float().mean().item()
            log(' det study %-8s rtol=%g atol=1e-5: fraction torch-f32 outside = %.2e' % (mode, rtol, fail))
        rel = err / d64.abs()
        log(' det study %s rel quantiles 50/99/99.9/99.99%%: %s' % (mode, [f'{q:.2e}' for q in torch.quantile(rel[:100000].float(), torch.tensor([0.5, 0.99, 0.999, 0.9999], device='cuda')).tolist()]))

if __name__ == '__main__':
    log('tf32 matmul', torch.backends.cuda.matmul.allow_tf32, 'cudnn tf32', torch.backends.cudnn.allow_tf32, 'sms', SMS)
    which = sys.argv[1:] or ['Fusion/fused_add_gelu', 'MatrixMultiply/matmul', 'Quantization/matmul_w8a8', 'Convolution/conv2d', 'LinearAlgebra/det']
    for w in which:
        if w == 'detstudy': det_study(); continue
        try: do_task('tasks/' + w, perf=os.environ.get('PERF', '1') == '1')
        except Exception: log(traceback.format_exc())
    open(os.path.join(OUT, 'log.txt'), 'w').write('\n'.join(LOG))

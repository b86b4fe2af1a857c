# Temporary validator: runs task references/examples with CuPy (NVRTC) and compares with PyTorch.
import configparser, re, sys, os, glob, math, json, traceback
import numpy as np, torch, cupy as cp
import torch.nn.functional as F

ROOT = sys.argv[1]
TASKS = sys.argv[2].split(',')
DO_PERF = len(sys.argv) > 3 and sys.argv[3] == 'perf'
INC = os.path.join(ROOT, 'tasks', 'include')
SMS = cp.cuda.Device().attributes['MultiProcessorCount']
torch.manual_seed(0)

class I(int):
    def _w(self, v): return I(v) if isinstance(v, int) else v
    def __truediv__(self, o):
        if isinstance(o, int): q = abs(int(self)) // abs(int(o)); return I(q if (self >= 0) == (o >= 0) else -q)
        return float(self) / o
    def __rtruediv__(self, o):
        if isinstance(o, int): return I(o) / self
        return o / float(self)
    def __add__(self, o): return self._w(int.__add__(self, o)) if isinstance(o, int) else float(self) + o
    __radd__ = __add__
    def __sub__(self, o): return self._w(int.__sub__(self, o)) if isinstance(o, int) else float(self) - o
    def __rsub__(self, o): return self._w(int.__rsub__(self, o)) if isinstance(o, int) else o - float(self)
    def __mul__(self, o): return self._w(int.__mul__(self, o)) if isinstance(o, int) else float(self) * o
    __rmul__ = __mul__
    def __mod__(self, o): return I(int(self) % int(o))
    def __neg__(self): return I(-int(self))

NUM = re.compile(r'(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)(?![\w.])')
def prep(e):
    return NUM.sub(lambda m: ('I(%s)' % m.group(1)) if re.fullmatch(r'\d+', m.group(1)) else m.group(1), e)
FUNCS = dict(I=I, cdiv=lambda a, b: I((int(a) + int(b) - 1) // int(b)), min=min, max=max, pow2=lambda k: I(2 ** int(k)))
def ev(e, env):
    d = dict(FUNCS); d.update(env)
    return eval(prep(e), {'__builtins__': {}}, d)

def parse_ini(path):
    cp_ = configparser.ConfigParser(comment_prefixes=(';', '#'), inline_comment_prefixes=(' ;',), interpolation=None, strict=False)
    cp_.optionxform = str
    cp_.read(path)
    return cp_

DT = {'f32': (torch.float32, np.float32), 'f64': (torch.float64, np.float64), 'f16': (torch.float16, np.float16),
      'i64': (torch.int64, np.int64), 'i32': (torch.int32, np.int32)}

def parse_args(ini):
    args = {}
    for k, v in ini['args'].items():
        v = v.split(' ;')[0].strip()
        m = re.match(r'(in|out|inout)\s+(\w+)\s*\[(.*)\]$', v)
        if m: args[k] = ('buf', m.group(1), m.group(2), [s.strip() for s in m.group(3).split(',') if s.strip()])
        else: args[k] = ('scalar', v)
    return args

def split_top(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == '(' : depth += 1
        if ch == ')': depth -= 1
        if ch == ',' and depth == 0: out.append(cur); cur = ''
        else: cur += ch
    out.append(cur); return [x.strip() for x in out]

def gen(spec, shape, dt, env):
    n = int(np.prod(shape)) if shape else 1
    tdt = DT[dt][0]
    m = re.match(r'(\w+)\s*(?:\((.*)\))?$', spec.strip())
    name, a = m.group(1), m.group(2)
    if name == 'randn': x = torch.randn(n, dtype=torch.float64, device='cuda')
    elif name == 'uniform':
        lo, hi = [float(ev(t, env)) for t in split_top(a)]; x = torch.rand(n, dtype=torch.float64, device='cuda') * (hi - lo) + lo
    elif name == 'outlier':
        p, s = [float(ev(t, env)) for t in split_top(a)]
        x = torch.randn(n, dtype=torch.float64, device='cuda'); mask = torch.rand(n, device='cuda') < p; x[mask] = torch.randn(int(mask.sum()), dtype=torch.float64, device='cuda') * s
    elif name == 'randint':
        lo, hi = [int(ev(t, env)) for t in split_top(a)]
        x = torch.randint(lo, hi, (n,), dtype=torch.int64, device='cuda') if hi > lo else torch.zeros(n, dtype=torch.int64, device='cuda')
    elif name == 'values':
        vals = []
        for t in split_top(a):
            t = t.strip()
            vals.append({'nan': float('nan'), 'inf': float('inf'), '-inf': float('-inf'), '-0': -0.0}.get(t, None) if t in ('nan', 'inf', '-inf', '-0') else float(t))
        x = torch.tensor([vals[i % len(vals)] for i in range(n)], dtype=torch.float64, device='cuda')
    elif name == 'zeros': x = torch.zeros(n, dtype=torch.float64, device='cuda')
    elif name == 'ones': x = torch.ones(n, dtype=torch.float64, device='cuda')
    elif name == 'full': x = torch.full((n,), float(ev(a, env)), dtype=torch.float64, device='cuda')
    elif name == 'special':
        pool = torch.tensor([float('nan'), float('inf'), float('-inf'), 0.0, -0.0, 1e-40, -1e-40, 1e-45, 3e38, -3e38, 1e30, -1e30, 1e-30, 65504.0, 7e4, 1e-7], dtype=torch.float64, device='cuda')
        x = torch.randn(n, dtype=torch.float64, device='cuda')
        pick = torch.rand(n, device='cuda') < 0.5
        x[pick] = pool[torch.randint(0, len(pool), (int(pick.sum()),), device='cuda')]
    else: raise ValueError(spec)
    if tdt in (torch.int64, torch.int32): x = x.to(torch.int64)
    return x.to(tdt).reshape(shape)

def parse_kbx(src):
    launches, scratch, expect = [], [], None
    for line in src.splitlines():
        m = re.match(r'//\s*@kbx expect (\w+)', line)
        if m: expect = m.group(1)
        m = re.match(r'//\s*@kbx scratch (\w+) (\w+) \[(.*)\]', line)
        if m: scratch.append((m.group(1), m.group(2), [s.strip() for s in m.group(3).split(',')]))
        m = re.match(r'//\s*@kbx launch (\w+)<<<(.*)>>>\((.*)\)\s*(cooperative)?\s*$', line)
        if m: launches.append((m.group(1), split_top(m.group(2)), split_top(m.group(3))))
    return launches, scratch, expect

def dim3(e, env):
    e = e.strip()
    if e.startswith('dim3('):
        parts = split_top(e[5:-1]); v = [int(ev(p, env)) for p in parts]
        while len(v) < 3: v.append(1)
        return tuple(v)
    return (int(ev(e, env)), 1, 1)

def run_kernel(src, mod_cache, args, bufs, env, time_it=False):
    launches, scratch, _ = parse_kbx(src)
    env = dict(env); env['sms'] = I(SMS)
    key = hash(src)
    if key not in mod_cache:
        mod_cache[key] = cp.RawModule(code=src, options=('-I' + INC, '--std=c++17'), name_expressions=None)
    mod = mod_cache[key]
    sbufs = {}
    for name, dt, shp in scratch:
        shape = [int(ev(s, env)) for s in shp]
        sbufs[name] = cp.full(shape, float('nan'), dtype=DT[dt][1])
    def launch_all():
        for kname, gb, al in launches:
            grid = dim3(gb[0], env); block = dim3(gb[1], env); smem = int(ev(gb[2], env)) if len(gb) > 2 else 0
            kargs = []
            for a in al:
                m = re.match(r'(i32|i64|f32|f64)\((.*)\)$', a)
                if m: kargs.append(DT[m.group(1)][1](ev(m.group(2), env))); continue
                if a in sbufs: kargs.append(sbufs[a]); continue
                spec = args[a]
                if spec[0] == 'buf': kargs.append(bufs[a])
                else: kargs.append(DT[spec[1]][1](env[a]))
            mod.get_function(kname)(grid, block, tuple(kargs), shared_mem=smem)
    if not time_it:
        launch_all(); cp.cuda.Device().synchronize(); return None
    st = cp.cuda.Stream(non_blocking=True)
    with st:
        launch_all(); st.synchronize()
        st.begin_capture()
        for _ in range(20): launch_all()
        g = st.end_capture()
        g.launch(st); st.synchronize()
        ts = []
        for _ in range(5):
            s, e = cp.cuda.Event(), cp.cuda.Event(); s.record(st); g.launch(st); e.record(st); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e) / 20)
    return sorted(ts)[2]

def t2c(t):
    if t.numel() == 0: return cp.zeros(tuple(t.shape), dtype={torch.float32: np.float32, torch.float16: np.float16, torch.int64: np.int64, torch.float64: np.float64}[t.dtype])
    return cp.from_dlpack(t.contiguous())

def c2t(c):
    if c.size == 0: return torch.zeros(c.shape, dtype={np.dtype('float32'): torch.float32, np.dtype('float16'): torch.float16, np.dtype('int64'): torch.int64}[c.dtype]).cuda()
    return torch.from_dlpack(c)

# ---- PyTorch references (the KernelBenchX functions) --------------------------------------------
def ref_index_select(env, ins):
    x = ins['x']; idx = ins['index']
    return {'y': torch.index_select(x, env['dim'], idx)}
def ref_avg_pool1d(env, ins):
    return {'y': F.avg_pool1d(ins['x'], int(env['kernel_size']), stride=int(env['stride']), padding=int(env['padding']))}
def ref_SGD(env, ins):
    param = ins['param'].clone(); grad = ins['grad']; buf = ins['momentum_buffer'].clone()
    lr, momentum, wd, damp, nest = float(env['lr']), float(env['momentum']), float(env['weight_decay']), float(env['dampening']), bool(env['nesterov'])
    if wd != 0: grad = grad.add(param, alpha=wd)
    if momentum > 0:
        buf.mul_(momentum).add_(grad, alpha=1 - damp)
        grad = grad.add(buf, alpha=momentum) if nest else buf
    param.add_(grad, alpha=-lr)
    return {'param': param, 'momentum_buffer': buf}
def ref_batch_norm(env, ins):
    rm = ins['running_mean'].clone(); rv = ins['running_var'].clone()
    y = F.batch_norm(ins['x'], rm, rv, ins['weight'], ins['bias'], bool(env['training']), float(env['momentum']), float(env['eps']))
    return {'y': y, 'running_mean': rm, 'running_var': rv}
def ref_interpolate(env, ins):
    mode = ['nearest', 'bilinear', 'bicubic'][env['mode']]
    sh, sw = float(env['scale_h']), float(env['scale_w'])
    ac = bool(env['align_corners']) if mode != 'nearest' else None
    if sh > 0: y = F.interpolate(ins['x'], scale_factor=(sh, sw), mode=mode, align_corners=ac)
    else: y = F.interpolate(ins['x'], size=(int(env['oh']), int(env['ow'])), mode=mode, align_corners=ac)
    return {'y': y}
REFS = {'index_select': ref_index_select, 'avg_pool1d': ref_avg_pool1d, 'SGD': ref_SGD, 'batch_norm': ref_batch_norm, 'interpolate': ref_interpolate}

def tol(dt): return (5e-3, 5e-3) if dt in ('f16', 'bf16') else (1e-5, 1e-5)

def compare(c, r, dt):
    if dt in ('i64', 'i32'): return bool(torch.equal(c.to(torch.int64), r.to(torch.int64))), 0
    rt, at = tol(dt)
    c = c.double(); r = r.double()
    if c.shape != r.shape: return False, 'shape %s vs %s' % (tuple(c.shape), tuple(r.shape))
    if c.numel() == 0: return True, 0
    both_nan = torch.isnan(c) & torch.isnan(r)
    close = ((c - r).abs() <= at + rt * r.abs()) & torch.isfinite(c) & torch.isfinite(r)
    ok = both_nan | (c == r) | close
    bad = (~ok).sum().item()
    if bad:
        i = (~ok).nonzero()[0].tolist()
        return False, '%d bad, first at %s: got %r want %r' % (bad, i, c[tuple(i)].item(), r[tuple(i)].item())
    return True, 0

def build_case(ini, args, sec, env0=None):
    env = {}
    gens = dict(ini['inputs']) if ini.has_section('inputs') else {}
    for k, v in ini[sec].items():
        v = v.split(' ;')[0].strip()
        if k in args and args[k][0] == 'buf': gens[k] = v; continue
        if k in ('bytes', 'flops', 'input_size'): continue
        env[k] = ev(v, env)
        if k in args and args[k][0] == 'scalar' and args[k][1] in ('f32', 'f64'): env[k] = float(env[k])
    return env, gens

def run_case(task, ini, args, srcs, env, gens, cache, label, time_it=False):
    ins = {}
    for a, spec in args.items():
        if spec[0] == 'buf' and spec[1] in ('in', 'inout'):
            shape = [int(ev(s, env)) for s in spec[3]]
            ins[a] = gen(gens[a], shape, spec[2], env)
    ref = REFS[task](env, ins)
    results = {}
    for sname, src in srcs:
        bufs = {}
        for a, spec in args.items():
            if spec[0] != 'buf': continue
            shape = [int(ev(s, env)) for s in spec[3]]
            if spec[1] == 'out': bufs[a] = cp.full(shape, -7777.0, dtype=DT[spec[2]][1])
            else: bufs[a] = t2c(ins[a].clone()).copy()
        try:
            t = run_kernel(src, cache, args, bufs, env, time_it)
        except Exception as e:
            results[sname] = ('error', str(e)[:300]); continue
        ok_all, msgs = True, []
        for a, spec in args.items():
            if spec[0] == 'buf' and spec[1] in ('out', 'inout'):
                want = ref[a] if a in ref else ins[a]
                ok, msg = compare(c2t(bufs[a]).reshape(want.shape) if bufs[a].size else c2t(bufs[a]), want, spec[2])
                if not ok: ok_all = False; msgs.append('%s: %s' % (a, msg))
        results[sname] = ('pass' if ok_all else 'wrong', '; '.join(msgs), t)
    return results, ins

def torch_time(task, env, ins):
    f = lambda: REFS[task](env, ins)
    for _ in range(3): f()
    torch.cuda.synchronize(); ts = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    return sorted(ts)[10]

for tid in TASKS:
    tdir = os.path.join(ROOT, 'tasks', tid); task = tid.split('/')[1]
    ini = parse_ini(os.path.join(tdir, 'task.ini')); args = parse_args(ini)
    srcs = [('reference', open(os.path.join(tdir, 'reference.cu')).read())]
    for p in sorted(glob.glob(os.path.join(tdir, 'examples', '*.cu'))): srcs.append((os.path.basename(p), open(p).read()))
    expects = {n: (parse_kbx(s)[2] or 'pass') for n, s in srcs}
    verdict = {n: 'pass' for n, _ in srcs}
    cache = {}
    print('=' * 20, tid)
    for sec in ini.sections():
        if not sec.startswith('case.'): continue
        try:
            env, gens = build_case(ini, args, sec)
            res, _ = run_case(task, ini, args, srcs, env, gens, cache, sec)
        except Exception as e:
            print('  %-28s HARNESS ERROR %s' % (sec, traceback.format_exc()[-600:])); continue
        line = '  %-28s ref=%s' % (sec, res['reference'][0])
        if res['reference'][0] != 'pass': line += ' [' + str(res['reference'][1]) + ']'
        for n, r in res.items():
            if n == 'reference': continue
            line += ' | %s=%s' % (n[:18], r[0])
            if r[0] != 'pass' and verdict[n] == 'pass': verdict[n] = r[0]
            if r[0] != 'pass' and expects[n] == 'pass': line += ' [' + str(r[1])[:200] + ']'
        if res['reference'][0] != 'pass': verdict['reference'] = res['reference'][0]
        print(line)
    for n in verdict: print('  VERDICT %-28s got %-6s expected %s %s' % (n, verdict[n], expects[n], 'OK' if verdict[n] == expects[n] else '<<<<< MISMATCH'))
    if DO_PERF:
        pv = dict(ini['perf'])
        lists = {}
        for k, v in pv.items():
            v = v.split(' ;')[0].strip()
            m = re.match(r'pow2\((\d+)\.\.(\d+)\)$', v); m2 = re.match(r'range\((\d+)\.\.(\d+):(\d+)\)$', v)
            if m: lists[k] = [2 ** e for e in range(int(m.group(1)), int(m.group(2)) + 1)]
            elif m2: lists[k] = list(range(int(m2.group(1)), int(m2.group(2)) + 1, int(m2.group(3))))
        nrows = len(next(iter(lists.values())))
        for r in range(nrows):
            env, gens = {}, dict(ini['inputs']) if ini.has_section('inputs') else {}
            for k, v in pv.items():
                v = v.split(' ;')[0].strip()
                if k in args and args[k][0] == 'buf': gens[k] = v; continue
                if k in ('bytes', 'flops', 'input_size'): continue
                env[k] = I(lists[k][r]) if k in lists else ev(v, env)
                if k in args and args[k][0] == 'scalar' and args[k][1] in ('f32', 'f64'): env[k] = float(env[k])
            try:
                res, ins = run_case(task, ini, args, srcs[:1], env, gens, cache, 'perf', time_it=False)
                res2, _ = run_case(task, ini, args, srcs[:1], env, gens, cache, 'perf', time_it=True)
                tt = torch_time(task, env, ins)
                rr = res['reference'][:2] + (res2['reference'][2] if len(res2['reference']) > 2 else None,)
                print('  perf row %d %s ref=%s %s kernel %.4f ms torch %.4f ms' % (r, ev(pv['input_size'], env), rr[0], rr[1][:100] if rr[0] != 'pass' else '', rr[2] if len(rr) > 2 and rr[2] else -1, tt))
            except Exception as e:
                print('  perf row %d HARNESS ERROR %s' % (r, traceback.format_exc()[-500:]))
            torch.cuda.empty_cache()

"""The worker's callbacks with stand-ins for torch and triton: load verdicts, error mapping,
the ctypes boundary, the task's call, output checks and the autotune sweep."""
import ast
import ctypes
import json
import os
import sys
import types
import unittest

import fakes
from kbxpy import autotune, cabi, outputs, tasks
from kbxpy.worker import TIMED, Binding, Worker, is_cuda_error, provenance_answer

REPO = os.path.normpath(os.path.join(fakes.HERE, "..", ".."))

GOOD = '''import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.autotune(configs=[1, 2], key=["n"])
@triton.jit
def _tuned(x_ptr, n):
    pass


def _launch(x):
    return _gelu_kernel[(1,)](x, x, 1, BLOCK=16)


def gelu(input, approximate="none"):
    return _launch(input)
'''


def request(text=GOOD, **kw):
    req = {"source": text, "source_name": "cand.py", "task": "Activation/gelu", "task_dir": None,
           "entry": "gelu", "signature": "(input, approximate='none')", "device": 0, "has_gpu": True}
    req.update(kw)
    return json.dumps(req)


class Load(unittest.TestCase):
    def test_ok_lists_kernels_and_autotuned(self):
        w = Worker(fakes.FakeRuntime())
        status, ans = w.load(request())
        self.assertEqual(status, 0, ans)
        self.assertEqual(ans["entry"], "gelu")
        self.assertEqual(ans["kernels"], ["_gelu_kernel", "_tuned"])
        self.assertEqual(ans["autotuned"], ["_tuned"])

    def test_syntax_error_before_torch(self):
        w = Worker(fakes.FakeRuntime(missing="PyTorch is not installed for /usr/bin/python3"))
        status, ans = w.load(request("def gelu(input:\n    pass\n"))
        self.assertEqual((status, ans["verdict"], ans["line"]), (1, "compile_error", 1))

    def test_missing_torch_is_not_run(self):
        w = Worker(fakes.FakeRuntime(missing="PyTorch is not installed for /usr/bin/python3"))
        status, ans = w.load(request())
        self.assertEqual((status, ans["verdict"]), (1, "not_run"))
        self.assertIn("/usr/bin/python3", ans["message"])

    def test_no_gpu_is_not_run(self):
        status, ans = Worker(fakes.FakeRuntime()).load(request(has_gpu=False))
        self.assertEqual(ans["verdict"], "not_run")

    def test_missing_entry(self):
        status, ans = Worker(fakes.FakeRuntime()).load(request(entry="silu", signature="(input)"))
        self.assertEqual((ans["verdict"], ans["message"]), ("abi_error", "no function 'silu(input)' in cand.py"))

    def test_wrong_signature(self):
        text = GOOD.replace("def gelu(input, approximate", "def gelu(x, approximate")
        status, ans = Worker(fakes.FakeRuntime()).load(request(text))
        self.assertEqual(ans["verdict"], "abi_error")
        self.assertIn("gelu(input, approximate='none')", ans["message"])
        self.assertEqual(ans["line"], text.splitlines().index("def gelu(x, approximate=\"none\"):") + 1)

    def test_exception_while_executing(self):
        text = GOOD + "\nX = [1][5]\n"
        status, ans = Worker(fakes.FakeRuntime()).load(request(text))
        self.assertEqual((ans["verdict"], ans["line"]), ("compile_error", len(text.splitlines())))

    def test_entry_guessed_without_name(self):
        status, ans = Worker(fakes.FakeRuntime()).load(request(entry=None, signature=None))
        self.assertEqual(ans["entry"], "gelu")

    def test_second_load_forgets_first(self):
        w = Worker(fakes.FakeRuntime())
        w.load(request(GOOD + "\nLEAK = 42\n"))
        first = w.loaded.name
        status, ans = w.load(request(GOOD + "\ndef probe():\n    return 'LEAK' in globals()\n"))
        self.assertEqual(status, 0)
        self.assertNotIn(first, sys.modules)
        self.assertFalse(w.loaded.module.probe())


class Failures(unittest.TestCase):
    def setUp(self):
        self.w = Worker(fakes.FakeRuntime())
        self.assertEqual(self.w.load(request())[0], 0)

    def test_exception_on_candidate_line(self):
        text = GOOD + "\n\ndef boom(input):\n    return _launch(input) + 1\n"
        self.assertEqual(self.w.load(request(text, entry="boom", signature=None))[0], 0)
        try:
            self.w.entry("x")
        except Exception as e:
            ans = self.w._failure(e, [])
        self.assertEqual(ans["kind"], "exception")
        self.assertEqual(ans["line"], len(text.splitlines()))
        self.assertTrue(ans["message"].startswith("TypeError: "))
        self.assertIn(f"(cand.py line {ans['line']})", ans["message"])

    def test_triton_compilation_error_mapped(self):
        from triton.compiler.errors import CompilationError
        src = "def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pass\n"
        node = ast.parse(src).body[0].body[0]
        e = CompilationError(src, node, "NameError('undefined')")
        ans = self.w._failure(e, [])
        self.assertEqual(ans["line"], GOOD.splitlines().index("    pass") + 1)
        self.assertIn("triton compilation error in _gelu_kernel", ans["message"])
        self.assertEqual(ans["kind"], "compile")

    def test_cuda_error_kind(self):
        self.assertTrue(is_cuda_error(RuntimeError("CUDA error: an illegal memory access was encountered")))
        self.assertTrue(is_cuda_error(RuntimeError("Triton Error [CUDA]: misaligned address")))
        self.assertFalse(is_cuda_error(RuntimeError("shape mismatch")))
        self.assertFalse(is_cuda_error(ValueError("CUDA error")))   # not a runtime error
        ans = self.w._failure(RuntimeError("CUDA error: device-side assert triggered"), [])
        self.assertEqual(ans["kind"], "cuda")


class ChainedCompileError(unittest.TestCase):
    def test_deepest_error_of_a_chain_names_the_helper_line(self):
        text = GOOD + "\n\n@triton.jit\ndef _helper(x):\n    return x + nope\n"
        w = Worker(fakes.FakeRuntime())
        self.assertEqual(w.load(request(text))[0], 0)
        from triton.compiler.errors import CompilationError
        helper_src = "def _helper(x):\n    return x + nope\n"
        inner = CompilationError(helper_src, ast.parse(helper_src).body[0].body[0], "NameError('nope')")
        outer_src = "def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pass\n"
        try:
            try:
                raise inner
            except CompilationError as e:
                raise CompilationError(outer_src, ast.parse(outer_src).body[0].body[0], None) from e
        except CompilationError as e:
            ans = w._failure(e, [])
        self.assertEqual(ans["line"], len(text.splitlines()))
        self.assertIn("in _helper", ans["message"])
        self.assertIn("nope", ans["message"])


class RealRuntimeWithoutTorch(unittest.TestCase):
    def test_missing_torch_names_the_interpreter(self):
        from kbxpy.runtime import Missing, Runtime
        saved = sys.modules.get("torch", "absent")
        sys.modules["torch"] = None          # an import of torch now fails, installed or not
        try:
            with self.assertRaises(Missing) as cm:
                Runtime(None).import_torch()
        finally:
            if saved == "absent":
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
        self.assertIn(f"PyTorch is not installed for {sys.executable}", str(cm.exception))


class CBoundary(unittest.TestCase):
    """The callbacks called through their C function pointers, as libkbxpy.so calls them."""

    def setUp(self):
        self.cb = cabi.make_callbacks(Worker(fakes.FakeRuntime()))

    def test_struct_layout(self):
        self.assertEqual(self.cb.abi, 1)
        self.assertEqual(cabi.KbxPyCallbacks.load.offset, ctypes.sizeof(ctypes.c_void_p))
        self.assertEqual(ctypes.sizeof(cabi.KbxPyCallbacks), 5 * ctypes.sizeof(ctypes.c_void_p))

    def test_load_through_pointer(self):
        buf = ctypes.create_string_buffer(65536)
        rc = self.cb.load(request().encode(), ctypes.addressof(buf), len(buf))
        self.assertEqual(rc, 0)
        self.assertEqual(cabi.decode(buf)["entry"], "gelu")

    def test_small_buffer_still_valid_json(self):
        buf = ctypes.create_string_buffer(120)
        rc = self.cb.load(request("x = (\n").encode(), ctypes.addressof(buf), len(buf))
        self.assertEqual(rc, 1)
        self.assertLess(len(buf.value), 120)
        json.loads(buf.value)

    def test_internal_error_is_answered(self):
        buf = ctypes.create_string_buffer(4096)
        rc = self.cb.load(b"{not json", ctypes.addressof(buf), len(buf))
        self.assertEqual(rc, 1)
        self.assertEqual(cabi.decode(buf)["verdict"], "error")
        rc = self.cb.call(7, 1, ctypes.addressof(buf), len(buf))
        self.assertEqual(rc, 1)
        self.assertEqual(cabi.decode(buf)["kind"], "exception")
        self.assertEqual(self.cb.bind(b"{}", ctypes.addressof(buf), len(buf)), -1)
        self.cb.unbind(3)  # nothing bound: no error


class TaskCall(unittest.TestCase):
    ARGS = [{"name": "x", "dir": "in"}, {"name": "y", "dir": "out"}, {"name": "s", "dir": "inout"}]

    def test_build_a(self):
        a = tasks.build_a(self.ARGS, {"x": "X", "y": "Y", "s": "S"}, {"n": 3, "eps": 1e-5})
        self.assertEqual(a, {"n": 3, "eps": 1e-5, "x": "X", "s": "S"})

    def test_task_crosscheck_loaded_once(self):
        d = os.path.join(REPO, "tasks", "Activation", "gelu")
        call = tasks.load_call(d)
        self.assertIs(call, tasks.load_call(d))
        seen = {}
        out = call(lambda x, approximate: seen.setdefault("a", approximate) and "Y", {"x": 1, "approximate": 1}, None)
        self.assertEqual((seen["a"], out), ("tanh", {"y": "Y"}))

    def test_broken_crosscheck_files(self):
        import tempfile
        for text, what in (("call = None\n", "defines no call"), ("x = 1\n", "defines no call"),
                           ("def call(fn, a, torch):\n    return {}\nstochastic = 3\n", "stochastic must be")):
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, "crosscheck.py"), "w") as fh:
                    fh.write(text)
                with self.assertRaises(RuntimeError) as cm:
                    tasks.load_task(d)
                self.assertIn(what, str(cm.exception))

    def test_default_call(self):
        call = tasks.DefaultCall().arrange(self.ARGS)
        self.assertEqual(call(lambda x, s: ("Y", "S2"), {"x": 1, "s": 2}, None), {"y": "Y", "s": "S2"})
        self.assertEqual(call(lambda x, s: "Y", {"x": 1, "s": 2}, None), {"y": "Y"})


class Outputs(unittest.TestCase):
    def setUp(self):
        self.torch = fakes.fake_torch_for_outputs()

    def test_dtype_mismatch_message(self):
        bound = fakes.FakeTensor("torch.float32", [12])
        with self.assertRaises(outputs.OutputError) as cm:
            outputs.check_one(self.torch, "y", fakes.FakeTensor("torch.float64", [3, 4]), bound)
        self.assertEqual(str(cm.exception),
                         "output 'y': the function returned float64 [3, 4]; the task's output is f32 [12]")

    def test_count_mismatch_and_none(self):
        bound = fakes.FakeTensor("torch.float32", [12])
        with self.assertRaises(outputs.OutputError):
            outputs.check_one(self.torch, "y", fakes.FakeTensor("torch.float32", [11]), bound)
        with self.assertRaises(outputs.OutputError):
            outputs.check_one(self.torch, "y", None, bound)
        with self.assertRaises(outputs.OutputError):
            outputs.check_one(self.torch, "y", 3.0, bound)
        outputs.check_one(self.torch, "y", fakes.FakeTensor("torch.float32", [3, 4]), bound)

    def test_missing_out_but_not_inout(self):
        bound = {"y": ("out", fakes.FakeTensor("torch.float32", [0]))}
        with self.assertRaises(outputs.OutputError):
            outputs.copy_outputs(self.torch, {}, bound)
        log = outputs.copy_outputs(self.torch, {}, {"s": ("inout", fakes.FakeTensor("torch.float32", [2]))})
        self.assertTrue(log)


class Sweep(unittest.TestCase):
    def test_every_config_runs_and_state_restored(self):
        tuner = types.SimpleNamespace(configs=["c1", "c2", "c3"], cache={"key": "c2"},
                                      base_fn=types.SimpleNamespace(__name__="_k"))
        ran = []
        log = []
        autotune.sweep(None, types.SimpleNamespace(), [tuner], lambda: ran.append(list(tuner.configs)), {}, {}, log)
        self.assertEqual(ran, [["c1"], ["c2"], ["c3"]])
        self.assertEqual((tuner.configs, tuner.cache), (["c1", "c2", "c3"], {"key": "c2"}))
        self.assertEqual(len(log), 3)

    def test_failing_config_names_itself(self):
        tuner = types.SimpleNamespace(configs=["good", "bad"], cache={}, base_fn=None)

        def run():
            if tuner.configs == ["bad"]:
                raise RuntimeError("CUDA error: an illegal memory access was encountered")
        with self.assertRaises(RuntimeError) as cm:
            autotune.sweep(None, types.SimpleNamespace(), [tuner], run, {}, {}, [])
        self.assertIn("config 2/2 (bad)", cm.exception.kbx_autotune_config)
        self.assertEqual(tuner.configs, ["good", "bad"])



class ProvenanceAnswerTest(unittest.TestCase):
    """Outputs computed by PyTorch ops fail a candidate, unless kbx run --allow-pytorch says the
    run cross-checks a task against a PyTorch function; the problem is logged either way."""

    def test_clean(self):
        self.assertEqual(provenance_answer(None, ["a"], False), (0, {"log": ["a"]}))
        self.assertEqual(provenance_answer(None, ["a"], True), (0, {"log": ["a"]}))

    def test_pytorch_ops_fail_a_candidate(self):
        rc, ans = provenance_answer("the candidate launched no Triton kernel", ["a"], False)
        self.assertEqual(rc, 1)
        self.assertEqual(ans["kind"], "not_kernel")
        self.assertEqual(ans["message"], "the candidate launched no Triton kernel")

    def test_allowed_for_a_cross_check(self):
        rc, ans = provenance_answer("the candidate launched no Triton kernel", ["a"], True)
        self.assertEqual(rc, 0)
        self.assertEqual(ans["log"], ["a", "allowed by --allow-pytorch: the candidate launched no Triton kernel"])


class TimedJoinTest(unittest.TestCase):
    """A timed call synchronises the device before it returns only once a checked call saw the
    candidate put work on another stream (its work must be inside the timing events)."""

    def test_synchronise_only_when_joining(self):
        calls = []
        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(set_stream=lambda s: None,
                                                                 synchronize=lambda: calls.append("sync")))
        w = Worker(types.SimpleNamespace(torch=torch))
        w.entry = lambda: None
        b = Binding()
        b.call = lambda fn, a, t: calls.append("call")
        w.bindings[0] = b
        self.assertEqual(w.call(0, TIMED), (0, {"log": []}))
        self.assertEqual(calls, ["call"])
        w.joins = True
        self.assertEqual(w.call(0, TIMED), (0, {"log": []}))
        self.assertEqual(calls, ["call", "call", "sync"])


class QuietWatch:
    """hooks.Watch without torch: sees nothing."""

    def __init__(self, *args):
        self.log, self.side_streams, self.autotuners = [], set(), []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class SkippedCallTest(unittest.TestCase):
    """A case the task's crosscheck.py cannot check: its answer says whether the candidate ran
    (stochastic: it ran, a timed call would time it) or not ("uncalled": nothing to time)."""

    def setUp(self):
        from kbxpy import worker as worker_mod
        self.mod = worker_mod
        self.saved = worker_mod.hooks.Watch
        worker_mod.hooks.Watch = QuietWatch
        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(set_stream=lambda s: None, synchronize=lambda: None))
        self.w = Worker(types.SimpleNamespace(torch=torch, triton=None))
        self.w.request = {"allow_pytorch": True}
        self.ran = []
        self.w.entry = lambda *a: self.ran.append(1)
        self.b = Binding()
        self.w.bindings[0] = self.b

    def tearDown(self):
        self.mod.hooks.Watch = self.saved

    def test_uncalled(self):
        self.b.call = lambda fn, a, t: None
        rc, ans = self.w.call(0, 1)
        self.assertEqual((rc, ans["kind"], ans["uncalled"], self.ran), (1, "skip", True, []))

    def test_called_but_refused(self):
        self.b.call = lambda fn, a, t: fn() and None
        rc, ans = self.w.call(0, 1)
        self.assertEqual((rc, ans["kind"], ans["uncalled"], self.ran), (1, "skip", False, [1]))

    def test_stochastic_runs_then_skips(self):
        self.b.call = lambda fn, a, t: fn() or {}
        self.b.stochastic = True
        rc, ans = self.w.call(0, 1)
        self.assertEqual((rc, ans["kind"], self.ran), (1, "skip", [1]))
        self.assertNotIn("uncalled", ans)
        self.assertIn("random generator", ans["message"])
        self.b.stochastic = False
        self.assertEqual(self.w.call(0, 1)[0], 0)


class CatalogueCallTest(unittest.TestCase):
    """Every task's crosscheck.py gives a call for Python candidates (a task without one could
    never run them), and a stochastic() where it has one."""

    def test_every_task_has_a_call(self):
        root = os.path.join(REPO, "tasks")
        n = 0
        for cat in sorted(os.listdir(root)):
            for name in sorted(os.listdir(os.path.join(root, cat))) if os.path.isdir(os.path.join(root, cat)) else []:
                d = os.path.join(root, cat, name)
                if not os.path.exists(os.path.join(d, "task.ini")):
                    continue
                call, stochastic = tasks.load_task(d)
                self.assertTrue(callable(call), d)
                self.assertTrue(callable(stochastic), d)
                n += 1
        self.assertGreater(n, 180)

    def test_dropout_is_stochastic_only_when_active(self):
        d = os.path.join(REPO, "tasks", "Fusion", "fused_hardshrink_dropout")
        call, stochastic = tasks.load_task(d)
        self.assertTrue(stochastic({"training": 1, "p": 0.5}))
        self.assertFalse(stochastic({"training": 0, "p": 0.5}))
        self.assertFalse(stochastic({"training": 1, "p": 1.0}))
        seen = []
        out = call(lambda x, **kw: seen.append(kw) or "Y", {"input": "X", "training": 1, "p": 0.5, "lambd": 0.5}, None)
        self.assertEqual((out, seen[0]["training"]), ({"y": "Y"}, True))

if __name__ == "__main__":
    unittest.main()

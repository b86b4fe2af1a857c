"""Recording Triton launches and autotuners with stand-ins (no torch, no triton)."""
import types
import unittest

import fakes
from kbxpy import hooks
from kbxpy.provenance import Provenance


class Launches(unittest.TestCase):
    def setUp(self):
        self.triton = fakes.make_triton()
        self.torch = types.ModuleType("torch")   # no torch.utils: the aten watch degrades, says so
        self.torch.Tensor = fakes.FakeTensor
        JIT = self.triton.runtime.jit.JITFunction
        self.JIT = JIT

        def _k(x, y):
            pass
        self.kernel = self.triton.jit(_k)
        self.tuned = self.triton.autotune(configs=["a", "b"])(self.triton.jit(_k))

    def test_launch_recorded_with_pointer_storages_and_restored(self):
        original = self.JIT.__dict__["run"]
        prov = Provenance()
        prov.bind(0x100, 64, "x", "in")
        x = fakes.FakeTensor("f32", [16], ptr=0x100)
        y = fakes.FakeTensor("f32", [16], ptr=0x900)
        with hooks.Watch(self.torch, self.triton, prov) as w:
            self.kernel[(1,)](x, y)
            self.kernel.run(x, y, grid=(1,), warmup=True)   # a warm-up launches nothing
        self.assertIs(self.JIT.__dict__["run"], original)
        self.assertEqual(prov.launches, {"_k": 1})
        self.assertEqual(prov.of(0x900), {"triton:_k"})
        self.assertEqual(prov.of(0x100), {"input:x"})
        self.assertTrue(any("cannot watch PyTorch ops" in ln for ln in w.log))

    def test_autotuner_noted(self):
        prov = Provenance()
        with hooks.Watch(self.torch, self.triton, prov) as w:
            self.tuned[(1,)](fakes.FakeTensor("f32", [1], ptr=0x500))
        self.assertEqual(w.autotuners, [self.tuned])
        self.assertEqual(prov.launches, {"_k": 1})

    def test_inherited_method_patched_and_removed(self):
        class Sub(self.JIT):
            pass
        w = hooks.Watch(self.torch, self.triton, Provenance())
        w._patch(Sub, "run", lambda orig: (lambda self, *a, **k: "patched"))
        self.assertIn("run", Sub.__dict__)
        w._stack.close()
        self.assertNotIn("run", Sub.__dict__)

    def test_exception_in_kernel_restores(self):
        def boom(self, *a, **k):
            raise RuntimeError("launch failed")
        saved = self.JIT.run
        self.JIT.run = boom
        try:
            with self.assertRaises(RuntimeError):
                with hooks.Watch(self.torch, self.triton, Provenance()):
                    self.kernel[(1,)]()
            self.assertIs(self.JIT.__dict__["run"], boom)
        finally:
            self.JIT.run = saved

    def test_side_streams_noted(self):
        """A launch made while another stream is current is noted (its handle); one on the call's
        stream is not; without a call stream nothing is watched."""
        class Stream:
            def __init__(self, h):
                self.cuda_stream = h
        call, side = Stream(7), Stream(9)
        current = [call]
        self.torch.cuda = types.SimpleNamespace(current_stream=lambda: current[0])
        with hooks.Watch(self.torch, self.triton, Provenance(), call) as w:
            self.kernel[(1,)](fakes.FakeTensor("f32", [1], ptr=0x500))
            self.assertEqual(w.side_streams, set())
            current[0] = side
            self.kernel[(1,)](fakes.FakeTensor("f32", [1], ptr=0x500))
        self.assertEqual(w.side_streams, {9})
        with hooks.Watch(self.torch, self.triton, Provenance()) as w:
            self.kernel[(1,)](fakes.FakeTensor("f32", [1], ptr=0x500))
        self.assertEqual(w.side_streams, set())

    def test_inventory(self):
        mod = types.ModuleType("m")
        mod.k = self.kernel
        mod.t = self.tuned
        mod.f = lambda: None
        self.assertEqual(hooks.inventory(mod, self.triton), (["_k"], ["_k"]))


if __name__ == "__main__":
    unittest.main()

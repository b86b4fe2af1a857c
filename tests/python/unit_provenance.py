"""Provenance bookkeeping: which storage's data came from a Triton kernel or a PyTorch op."""
import unittest

import fakes  # noqa: F401
from kbxpy import provenance
from kbxpy.provenance import Provenance

X, Y, T1, T2, T3 = 0x1000, 0x2000, 0x3000, 0x4000, 0x5000


def bound():
    p = Provenance()
    p.bind(X, 4096, "x", "in")
    p.bind(Y, 4096, "y", "out")
    return p


class Classify(unittest.TestCase):
    def test_names(self):
        self.assertEqual(provenance.classify("aten::empty.memory_format"), "alloc")
        self.assertEqual(provenance.classify("aten::zeros_like"), "alloc")
        self.assertEqual(provenance.classify("aten::copy_"), "glue")
        self.assertEqual(provenance.classify("aten::_to_copy"), "glue")
        self.assertEqual(provenance.classify("aten::view"), "glue")
        self.assertEqual(provenance.classify("aten::gelu"), "compute")
        self.assertEqual(provenance.classify("aten::add_.Tensor"), "compute")
        self.assertEqual(provenance.classify("aten::_local_scalar_dense"), "ignore")


class Judge(unittest.TestCase):
    def test_kernel_output(self):
        p = bound()
        p.op("aten::empty_like", [X], [T1], [])
        p.kernel("_gelu", [X, T1])
        problem, log = p.judge({"y": T1})
        self.assertIsNone(problem)
        self.assertIn("output 'y' <- triton _gelu", log)
        self.assertNotIn("triton:_gelu", p.of(X))   # an input a kernel only read is not its product

    def test_glue_keeps_kernel_origin(self):
        p = bound()
        p.op("aten::_to_copy", [X], [T1], [])       # x.float() copy
        p.op("aten::empty", [], [T2], [])
        p.kernel("_k", [T1, T2])
        p.op("aten::_to_copy", [T2], [T3], [])       # .to(input.dtype)
        self.assertIsNone(p.judge({"y": T3})[0])

    def test_pytorch_compute_only_output(self):
        p = bound()
        p.op("aten::empty", [], [T1], [])
        p.kernel("_noop", [T1])                       # a kernel ran, on something else
        p.op("aten::gelu", [X], [T2], [])
        problem, log = p.judge({"y": T2})
        self.assertIn("output 'y' was computed by PyTorch ops (gelu)", problem)
        self.assertIn("pytorch compute ops: gelu x1", log)

    def test_no_kernel_at_all(self):
        p = bound()
        p.op("aten::clone", [X], [T1], [])
        problem, _ = p.judge({"y": T1})
        self.assertIn("launched no Triton kernel", problem)

    def test_no_kernel_needed_where_nothing_is_computed(self):
        # an empty case (no input element, or no output element): no launch is right, and so is
        # an output filled by a PyTorch op (zeros for a sum over nothing)
        p = bound()
        p.op("aten::zeros", [], [T1], [])
        problem, log = p.judge({"y": T1}, idle=True)
        self.assertIsNone(problem)
        self.assertIn("no element to compute in this case: no kernel is required", log)
        # the same candidate on a case with elements is not excused
        self.assertIn("launched no Triton kernel", p.judge({"y": T1})[0])

    def test_mixed_compute_and_kernel_passes(self):
        p = bound()
        p.op("aten::empty", [], [T1], [])
        p.kernel("_exp", [X, T1])
        p.op("aten::sum", [T1], [T2], [])
        p.op("aten::div", [T1, T2], [T3], [])
        problem, log = p.judge({"y": T3})
        self.assertIsNone(problem)
        self.assertTrue(any("triton _exp; pytorch div, sum" in ln for ln in log))

    def test_in_place_write_adds_origins(self):
        p = bound()
        p.bind(T1, 64, "running_mean", "inout")
        p.op("aten::clone", [T1], [T2], [])
        p.kernel("_bn", [X, T2])
        p.op("aten::mul_", [T2], [], [T2])
        self.assertEqual(p.of(T2), {"input:running_mean", "triton:_bn", "aten:mul_"})
        self.assertIsNone(p.judge({"running_mean": T2})[0])

    def test_unchanged_inout_is_not_flagged(self):
        p = bound()
        p.bind(T1, 64, "stats", "inout")
        p.op("aten::empty", [], [T2], [])
        p.kernel("_k", [X, T2])
        self.assertIsNone(p.judge({"y": T2, "stats": T1})[0])

    def test_allocation_resets_reused_storage(self):
        p = bound()
        p.op("aten::gelu", [X], [T1], [])
        p.op("aten::empty", [], [T1], [])            # the allocator handed the block out again
        self.assertEqual(p.of(T1), set())

    def test_raw_pointer_inside_a_storage(self):
        p = bound()
        p.op("aten::empty", [], [T1], [], sizes={T1: 256})
        p.kernel("_k", [T1 + 128])
        self.assertIn("triton:_k", p.of(T1))

    def test_out_variant_mutation(self):
        p = bound()
        p.op("aten::empty", [], [T1], [])
        p.op("aten::mm.out", [X, X, T1], [], [T1])
        self.assertIn("aten:mm", p.of(T1))

    def test_launch_counts_in_log(self):
        p = bound()
        p.kernel("_a", [])
        p.kernel("_b", [])
        p.kernel("_a", [])
        self.assertIn("triton kernels launched: _a x2, _b x1", p.judge({})[1])


if __name__ == "__main__":
    unittest.main()

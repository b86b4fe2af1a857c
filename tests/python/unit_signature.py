"""The entry function against the task's signature (no torch needed)."""
import unittest

import fakes  # noqa: F401
from kbxpy import signature

GELU = "(input, approximate='none')"


class Check(unittest.TestCase):
    def problems(self, fn, sig=GELU):
        return signature.check(fn, sig)[0]

    def test_same_signature(self):
        def gelu(input, approximate="none"): pass
        self.assertEqual(signature.check(gelu, GELU), ([], []))

    def test_renamed_required_parameter(self):
        def gelu(x, approximate="none"): pass
        self.assertEqual(self.problems(gelu), ["argument 1 is named 'x', the task's is 'input'"])

    def test_missing_optional_is_a_warning(self):
        def gelu(input): pass
        problems, warnings = signature.check(gelu, GELU)
        self.assertEqual(problems, [])
        self.assertEqual(len(warnings), 1)

    def test_extra_required_parameter(self):
        def gelu(input, scale, approximate="none"): pass
        self.assertIn("parameter 'scale' is required but the task does not pass it", self.problems(gelu))

    def test_extra_optional_parameter_is_fine(self):
        def gelu(input, approximate="none", block=1024): pass
        self.assertEqual(self.problems(gelu), [])

    def test_varargs_and_kwargs_take_anything(self):
        def gelu(*args, **kwargs): pass
        self.assertEqual(self.problems(gelu), [])

    def test_keyword_only_required_input(self):
        def gelu(*, input, approximate="none"): pass
        self.assertIn("parameter 'input' cannot be passed as argument 1", self.problems(gelu))

    def test_positional_only_candidate(self):
        def gelu(input, /, approximate="none"): pass
        self.assertIn("parameter 'input' cannot be passed by name", self.problems(gelu))

    def test_required_keyword_only_of_reference(self):
        def f(a, b=1): pass
        self.assertIn("keyword parameter 'dim' is not accepted", self.problems(f, "(a, *, dim)"))

    def test_two_inputs_swapped(self):
        def matmul(weight, input): pass
        self.assertTrue(self.problems(matmul, "(input, weight)"))

    def test_bad_signature_text(self):
        with self.assertRaises(signature.SignatureError):
            signature.parse_reference("(a, b=")

    def test_parse_reference(self):
        params = signature.parse_reference("(input, dim=-1, *, out=None, eps)")
        self.assertEqual([(p.name, p.kind, p.required) for p in params],
                         [("input", "positional", True), ("dim", "positional", False),
                          ("out", "keyword", False), ("eps", "keyword", True)])


if __name__ == "__main__":
    unittest.main()

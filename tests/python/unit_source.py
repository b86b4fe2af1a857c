"""Syntax errors, tracebacks and Triton compile errors mapped to the candidate's lines; module
loading and unloading (no torch needed)."""
import ast
import inspect
import linecache
import sys
import unittest

import fakes  # noqa: F401  (puts python/ on sys.path)
from kbxpy import source


def load(text, name="cand.py"):
    return source.execute(source.check_syntax(text, name), text, name)


class SyntaxCheck(unittest.TestCase):
    def test_syntax_error_line_and_col(self):
        text = "import torch\n\ndef f(x):\n    return x +\n"
        with self.assertRaises(source.CandidateError) as cm:
            source.check_syntax(text, "cand.py")
        e = cm.exception
        self.assertEqual(e.verdict, "compile_error")
        self.assertEqual(e.line, 4)
        self.assertGreater(e.col, 0)
        self.assertIn("cand.py line 4", e.message)
        self.assertTrue(any("return x +" in ln for ln in e.log))

    def test_indentation_error(self):
        with self.assertRaises(source.CandidateError) as cm:
            source.check_syntax("def f():\nreturn 1\n", "c.py")
        self.assertEqual(cm.exception.line, 2)
        self.assertIn("IndentationError", cm.exception.message)

    def test_valid_source_compiles(self):
        code = source.check_syntax("x = 1\n", "c.py")
        self.assertEqual(code.co_filename, "c.py")

    def test_nul_byte(self):
        with self.assertRaises(source.CandidateError) as cm:
            source.check_syntax("x = 1\0\n", "c.py")
        self.assertEqual(cm.exception.verdict, "compile_error")


class Execute(unittest.TestCase):
    def test_module_registered_and_source_visible(self):
        text = "def gelu(input):\n    return input\n"
        m = load(text)
        self.assertIn(m.name, sys.modules)
        self.assertEqual(inspect.getsource(m.module.gelu), text)   # what Triton's @jit needs
        self.assertEqual(m.module.gelu.__module__, m.name)
        source.unload(m)
        self.assertNotIn(m.name, sys.modules)
        self.assertNotIn("cand.py", linecache.cache)

    def test_second_load_does_not_see_first(self):
        a = load("SECRET = 1\ndef f():\n    return SECRET\n")
        source.unload(a)
        b = load("def g():\n    return globals().get('SECRET')\n")
        self.assertIsNone(b.module.g())
        self.assertNotEqual(a.name, b.name)
        self.assertFalse(any(k == a.name for k in sys.modules))
        source.unload(b)

    def test_import_error_is_compile_error_on_its_line(self):
        text = "import os\n\nimport no_such_module_kbx\n"
        with self.assertRaises(source.CandidateError) as cm:
            load(text)
        e = cm.exception
        self.assertEqual((e.verdict, e.line), ("compile_error", 3))
        self.assertIn("import failed", e.message)
        self.assertNotIn("cand.py", linecache.cache)  # unloaded after the failure

    def test_exception_in_module_body_deepest_candidate_line(self):
        text = "def helper():\n    return 1 / 0\n\nX = helper()\n"
        with self.assertRaises(source.CandidateError) as cm:
            load(text)
        self.assertEqual(cm.exception.line, 2)
        self.assertIn("ZeroDivisionError", cm.exception.message)

    def test_system_exit_is_caught(self):
        with self.assertRaises(source.CandidateError) as cm:
            load("import sys\nsys.exit(3)\n")
        self.assertEqual(cm.exception.line, 2)


class Traceback(unittest.TestCase):
    def test_candidate_line_skips_library_frames(self):
        m = load("import json\n\ndef f(s):\n    return json.loads(s)\n")
        try:
            m.module.f("{bad")
        except ValueError as e:
            self.assertEqual(source.candidate_line(e, "cand.py"), 4)
            self.assertTrue(any("line 4, in f" in ln for ln in source.format_exception(e, "cand.py")))
        else:
            self.fail("no exception")
        source.unload(m)

    def test_no_candidate_frame_is_zero(self):
        try:
            int("x")
        except ValueError as e:
            self.assertEqual(source.candidate_line(e, "cand.py"), 0)


class TritonCompileError(unittest.TestCase):
    TEXT = ("import triton\n"            # 1
            "\n"                          # 2
            "@triton.jit\n"               # 3
            "def _k(x_ptr, n):\n"         # 4
            "    a = 1\n"                 # 5
            "    b = a + undefined\n"     # 6
            "\n"
            "def run(x):\n"
            "    return x\n")

    def test_node_line_relative_to_def(self):
        src = "def _k(x_ptr, n):\n    a = 1\n    b = a + undefined\n"
        node = ast.parse(src).body[0].body[1]   # line 3 of src
        e = type("CompilationError", (Exception,), {})("x")
        e.src, e.node = src, node
        self.assertEqual(source.triton_error_line(e, self.TEXT), 6)

    def test_src_with_decorator_kept(self):
        src = "@triton.jit\ndef _k(x_ptr, n):\n    a = 1\n    b = a + undefined\n"
        e = Exception()
        e.src, e.node = src, ast.parse(src).body[0].body[1]   # lineno 4 counted from the decorator
        self.assertEqual(source.triton_error_line(e, self.TEXT), 6)

    def test_not_a_compilation_error(self):
        self.assertEqual(source.triton_error_line(ValueError("x"), self.TEXT), 0)


class Entry(unittest.TestCase):
    def test_named_entry_and_last_public(self):
        m = load("import math\nfrom os.path import join\n\ndef _private():\n    pass\n\n"
                 "def first(x):\n    pass\n\ndef second(x):\n    pass\n")
        self.assertEqual(source.find_entry(m.module, None, None, "cand.py").__name__, "second")
        self.assertEqual(source.find_entry(m.module, "first", None, "cand.py").__name__, "first")
        source.unload(m)

    def test_missing_entry_message(self):
        m = load("def other(x):\n    pass\n")
        with self.assertRaises(source.CandidateError) as cm:
            source.find_entry(m.module, "gelu", "(input, approximate='none')", "cand.py")
        self.assertEqual(cm.exception.verdict, "abi_error")
        self.assertEqual(cm.exception.message, "no function 'gelu(input, approximate='none')' in cand.py")
        source.unload(m)

    def test_no_public_function(self):
        m = load("import os\n")
        with self.assertRaises(source.CandidateError) as cm:
            source.find_entry(m.module, None, None, "cand.py")
        self.assertEqual(cm.exception.verdict, "abi_error")
        source.unload(m)


if __name__ == "__main__":
    unittest.main()

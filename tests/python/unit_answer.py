"""Answers always fit the engine's buffer and stay valid JSON (no torch needed)."""
import json
import unittest

import fakes  # noqa: F401
from kbxpy import answer


class Fit(unittest.TestCase):
    def test_small_answer_unchanged(self):
        obj = {"log": ["a", "b"], "kind": "exception", "message": "boom", "line": 3}
        self.assertEqual(json.loads(answer.fit(obj, 65536)), obj)

    def test_long_log_is_thinned_and_fits(self):
        obj = {"kind": "exception", "message": "m" * 1000, "line": 7, "log": [f"line {i} " + "x" * 300 for i in range(5000)]}
        for outlen in (65536, 4096, 512, 100):
            data = answer.fit(obj, outlen)
            self.assertLessEqual(len(data), outlen - 1)
            back = json.loads(data)
            self.assertEqual(back["line"], 7)
            self.assertIn("kind", back)

    def test_log_keeps_head_and_tail_and_says_what_went(self):
        obj = {"log": [f"l{i}" for i in range(1000)]}
        back = json.loads(answer.fit(obj, 65536))
        self.assertEqual(back["log"][0], "l0")
        self.assertEqual(back["log"][-1], "l999")
        self.assertTrue(any("left out" in ln for ln in back["log"]))

    def test_multibyte_text_never_cut_mid_character(self):
        obj = {"message": "é" * 5000, "log": ["ü" * 500] * 50}
        data = answer.fit(obj, 700)
        self.assertLessEqual(len(data), 699)
        json.loads(data.decode("utf-8"))

    def test_tiny_buffer(self):
        data = answer.fit({"message": "x" * 100}, 10)
        self.assertLessEqual(len(data), 9)
        self.assertEqual(json.loads(data), {})

    def test_one_line(self):
        self.assertEqual(answer.one_line("a\n\nb"), "a | b")
        self.assertEqual(answer.one_line("at 1:2:\nsrc\nsrc2\nsrc3\nboom"), "at 1:2: | boom")
        self.assertEqual(len(answer.one_line("z" * 1000, 50)), 50)


if __name__ == "__main__":
    unittest.main()

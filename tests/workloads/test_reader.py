"""The one reader under every file quietload reads: each refusal is one ScenarioError naming the
file and the place in it; a named pipe is refused without being opened."""
import os

import pytest

from workloads import ScenarioError
from workloads.reader import MAX_TEXT_BYTES, read_json, read_text, read_yaml, safe_yaml

# (file text, the refusal after "<path>: " or "<path> "): the same shapes in YAML and JSON
YAML = {
    "a key twice at the top": ("name: a\nrate: 1\nname: b\n", ": name is given twice (lines 1 and 3); a key is said once"),
    "a key twice inside": ("batch:\n  producer:\n    linger.ms: 5\n    linger.ms: 10\n",
                           ": batch.producer.linger.ms is given twice (lines 3 and 4)"),
    "a key twice in a list item": ("tenants:\n- {name: a, rate: 1, rate: 2}\n", ": tenants[0].rate is given twice (lines 2 and 2)"),
    "yes and true, one key as read": ("a:\n  yes: 1\n  true: 2\n", ": a.true is given twice (lines 2 and 3)"),
    "~ and null, one key as read": ("a:\n  ~: 1\n  null: 2\n", ": a.null is given twice (lines 2 and 3)"),
    "1 and 0x1, one key as read": ("a:\n  1: x\n  0x1: y\n", ": a.0x1 is given twice (lines 2 and 3)"),
    "a 20-digit whole number": ("size: 12345678901234567890\n", ": size: 12345678901234567890 is past the largest number"),
    "a 400-digit whole number": ("a:\n  b: " + "9" * 400 + "\n", ": a.b (line 2): 999999999999... (400 digits) is past"),
    "5,000 digits": ("n: " + "9" * 5000 + "\n", ": n (line 1): 999999999999... (5000 digits) is past"),
    ".nan": ("x: [1, .nan]\n", ": x[1]: expected a finite number, got nan"),
    "-.inf": ("x: {y: -.inf}\n", ": x.y: expected a finite number, got -inf"),
}
JSON = {
    "a key twice at the top": ('{"a": 1, "a": 2}', ": a is given twice; a key is said once"),
    "a key twice inside": ('{"summary": {"batches": 1, "batches": 2}}', ": summary.batches is given twice"),
    "a 20-digit whole number": ('{"summary": {"produce_requests": 12345678901234567890}}',
                                ": summary.produce_requests: 12345678901234567890 is past the largest number"),
    "a 400-digit whole number": ('{"seed": ' + "9" * 400 + "}", ": seed: 999999999999... (400 digits) is past"),
    "5,000 digits": ('{"seed": -' + "9" * 5000 + "}", ": seed: -99999999999... (5000 digits) is past"),
    "NaN": ('{"a": [NaN]}', ": a[0]: expected a finite number, got nan"),
    "Infinity": ('{"a": -Infinity}', ": a: expected a finite number, got -inf"),
    "past a float": ('{"a": 1e400}', ": a: 1e400 is past the largest number"),
    "nested past 64": ("[" * 70 + "]" * 70, ": nested more than 64 levels deep"),
    "nested past the stack": ("[" * 100_000 + "]" * 100_000, ": nested more than 64 levels deep"),
    "not JSON": ('{"a": 1,}', ": not JSON (Expecting property name enclosed in double quotes at line 1 column 9)"),
}


CASES = {**{f"YAML: {case}": (read_yaml, "f.yaml", *shape) for case, shape in YAML.items()},
         **{f"JSON: {case}": (read_json, "f.json", *shape) for case, shape in JSON.items()}}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_file_is_refused_naming_the_place(case, tmp_path):
    read, name, text, refusal = CASES[case]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScenarioError) as refused:
        read(path, "--x")
    assert str(refused.value).startswith(f"--x: {path}") and refusal in str(refused.value), str(refused.value)


def test_yaml_1_1_s_surprises_are_texts_a_number_s_field_refuses():
    """Base 60 and a leading zero's octal are texts; an unquoted yes/no stays a boolean, which a text's field refuses."""
    assert safe_yaml("linger.ms: 1:30\nb: 010\nc: 0x1F\nd: 1_000\ne: 12:30:00\n", "f", "t") == \
        {"linger.ms": "1:30", "b": "010", "c": 31, "d": 1000, "e": "12:30:00"}
    assert safe_yaml("a: yes\nb: off\n", "f", "t") == {"a": True, "b": False}
    assert safe_yaml("<<: {a: 1}\na: 2\n", "f", "t") == {"a": 2}   # a merge key's values give way, as YAML says


@pytest.mark.parametrize("kind", ["directory", "named pipe (FIFO)", "character device"])
def test_what_is_not_a_file_is_named_and_never_opened(kind, tmp_path):
    path = {"directory": tmp_path, "character device": "/dev/zero"}.get(kind, tmp_path / "fifo")
    if kind.startswith("named pipe"):
        os.mkfifo(path)   # opened for reading, it would block until a writer came
    for read in (read_text, read_yaml, read_json):
        with pytest.raises(ScenarioError, match=f"^--x: {path} is a{'n' if kind[0] in 'aeiou' else ''} {kind}, not a file$".replace("(", r"\(").replace(")", r"\)")):
            read(path, "--x")


def test_size_and_encoding(tmp_path):
    big, binary = tmp_path / "big.yaml", tmp_path / "bin.json"
    with big.open("wb") as sparse:
        sparse.truncate(MAX_TEXT_BYTES + 1)
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ScenarioError, match=f"big.yaml holds {MAX_TEXT_BYTES + 1:,} bytes; a file of this kind is at most"):
        read_yaml(big, "f")
    with pytest.raises(ScenarioError, match="bin.json is not a UTF-8 text file$"):
        read_json(binary, "f")
    with pytest.raises(ScenarioError, match="gone.json: no such file$"):
        read_json(tmp_path / "gone.json", "f")


def test_good_files_read_as_before(tmp_path):
    (tmp_path / "a.yaml").write_text("name: a\nsize: 9007199254740992\nrate: 1.5\nlist: [1, {b: c}]\n")
    (tmp_path / "a.json").write_text('{"a": [1, 2.5, null, true, "x"], "b": {"c": -9007199254740992}}')
    assert read_yaml(tmp_path / "a.yaml", "f") == {"name": "a", "size": 2**53, "rate": 1.5, "list": [1, {"b": "c"}]}
    assert read_json(tmp_path / "a.json") == {"a": [1, 2.5, None, True, "x"], "b": {"c": -(2**53)}}

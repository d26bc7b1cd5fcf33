"""The command line: outputs, exit codes, and one clear sentence for every bad input."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from infoloss.cli import app

DATA = Path(__file__).resolve().parent / "data"
runner = CliRunner()


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def digest(paths):
    return {p: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths}


@pytest.fixture()
def small(tmp_path):
    """A small paired example: original, protected, spec."""
    rng = np.random.default_rng(3)
    n = 60
    orig = pd.DataFrame(
        {
            "id": np.arange(n),
            "region": rng.choice(["north", "south", "east"], n),
            "educ": rng.integers(0, 4, n),
            "income": rng.lognormal(10, 1, n).round(2),
            "w": rng.uniform(1, 3, n).round(3),
        }
    )
    prot = orig.copy()
    prot["income"] = (prot["income"] * rng.normal(1, 0.05, n)).round(2)
    prot.loc[[3, 7], "region"] = None
    spec = {
        "variables": {
            "id": {"role": "id"},
            "region": {"scale": "nominal", "role": "key"},
            "educ": {"scale": "ordinal"},
            "income": {"scale": "continuous"},
            "w": {"role": "weight"},
        },
        "pairing": "row",
    }
    paths = {"orig": tmp_path / "orig.csv", "prot": tmp_path / "prot.csv", "spec": tmp_path / "spec.yaml"}
    orig.to_csv(paths["orig"], index=False)
    prot.to_csv(paths["prot"], index=False)
    paths["spec"].write_text(yaml.safe_dump(spec, sort_keys=False))
    paths["orig_df"], paths["prot_df"], paths["spec_dict"] = orig, prot, spec
    return paths


def test_compare_writes_json_with_the_contract_shape(small, tmp_path):
    before = digest([small["orig"], small["prot"], small["spec"]])
    out = tmp_path / "out.json"
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--json", out,
                 "--measures", "suppressions,records_changed,il1s")
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["infoloss"] == "0.1.0"
    assert doc["original"]["n_records"] == 60
    assert doc["original"]["variables"] == {"region": "nominal", "educ": "ordinal", "income": "continuous"}
    (scenario,) = doc["scenarios"]
    assert scenario["name"] == "prot" and scenario["paired"] is True and scenario["n_records"] == 60
    assert scenario["measures"]["suppressions"]["value"] == 2.0
    assert scenario["measures"]["suppressions"]["by_variable"]["region"] == 2
    # records_changed: 2 regions newly missing + every income that changed
    changed_income = int((small["orig_df"].income != small["prot_df"].income).sum())
    assert scenario["measures"]["records_changed"]["value"] == 2 + changed_income
    assert set(scenario["measures"]) | set(scenario["not_computed"]) == {"suppressions", "records_changed", "il1s"}
    assert digest([small["orig"], small["prot"], small["spec"]]) == before


def test_json_to_stdout_and_summary_table(small):
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--json", "-", "--measures", "suppressions")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["scenarios"][0]["measures"]["suppressions"]["value"] == 2.0
    result = run("compare", small["orig"], small["prot"], small["prot"], "--spec", small["spec"],
                 "--measures", "suppressions", "--name", "a", "--name", "b")
    assert result.exit_code == 0
    assert "suppressions" in result.stdout and " a " in result.stdout and " b " in result.stdout


def test_measures_lists_the_registry():
    from infoloss.registry import registered

    result = run("measures", "--json")
    listed = json.loads(result.stdout)
    assert [m["id"] for m in listed] == [m.id for m in registered()]
    assert {"il1s", "lambda", "gamma", "suppressions"} <= {m["id"] for m in listed}
    assert all(m["better"] in ("lower", "higher", "target") for m in listed)
    assert all(isinstance(m["ideal"], float) and isinstance(m["options"], list) for m in listed)
    assert {o["name"] for o in next(m for m in listed if m["id"] == "pmse")["options"]} == {"model", "max_records", "seed", "seeds", "weighted"}


def test_spec_command_infers_an_editable_spec(tmp_path):
    out = tmp_path / "spec.yaml"
    result = run("spec", DATA / "testdata" / "original.csv", "-o", out)
    assert result.exit_code == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["variables"]["income"]["scale"] == "continuous"
    assert spec["variables"]["sex"]["scale"] == "nominal"
    assert spec["variables"]["ori_hid"]["role"] == "id"
    assert spec["variables"]["sampling_weight"]["role"] == "weight"
    assert "# number" in out.read_text()
    # the header lists every role the spec accepts (cluster was missing)
    assert "role is key | sensitive | target | weight | id | household | strata | cluster | other." in out.read_text()


def test_spec_command_dash_header_only_and_data_endings(small, tmp_path, monkeypatch):
    # found by the hostile-input audit: '-o -' wrote a file named '-'; a header-only file gave a spec of columns
    # with 0 values (exit 0; compare refuses it); '-o p.csv' replaced a data file with YAML
    monkeypatch.chdir(tmp_path)
    result = run("spec", small["orig"], "-o", "-")
    assert result.exit_code == 0 and "variables:" in result.stdout and not (tmp_path / "-").exists()
    (tmp_path / "header.csv").write_text("id,region,educ\n")
    result = run("spec", tmp_path / "header.csv", "-o", tmp_path / "s.yaml")
    assert result.exit_code == 2 and "header.csv has no records; check that it is the right file" in result.stderr
    before = digest([small["prot"]])
    result = run("spec", small["orig"], "-o", small["prot"])
    assert result.exit_code == 2 and "has the ending of a data file (.csv); a spec is YAML" in result.stderr
    assert digest([small["prot"]]) == before and not (tmp_path / "s.yaml").exists()
    result = run("spec", small["orig"], "-o", tmp_path / "no" / "s.yaml")  # checked before the file is read
    assert result.exit_code == 2 and "the folder" in result.stderr and "does not exist" in result.stderr


def test_errors_name_the_protected_file_at_fault_when_several_are_given(small, tmp_path):
    # "the files have 60 and 50 records" and "holds numbers in the protected file" did not say which of several
    # protected files was meant (found by the hostile-input audit)
    prot = pd.read_csv(small["prot"])
    prot.iloc[:50].to_csv(tmp_path / "short.csv", index=False)
    prot.assign(region=prot["region"].map({"north": 1, "south": 2, "east": 3})).to_csv(tmp_path / "codes.csv",
                                                                                       index=False)
    for bad, message in (("short.csv", "the original file and the protected file {} have 60 and 50 records, so"),
                         ("codes.csv", "variable 'region' holds numbers in the protected file {} but text")):
        result = run("compare", small["orig"], small["prot"], tmp_path / bad, "--spec", small["spec"], "--measures",
                     "suppressions")
        assert result.exit_code == 2 and message.format(tmp_path / bad) in " ".join(result.stderr.split()), \
            result.stderr


def test_an_unwritable_records_folder_is_refused_before_any_work(small, tmp_path, monkeypatch):
    # found only after the whole comparison, naming the hidden staging file .records_original.csv.staged (found by
    # the hostile-input audit); the folder is made unwritable by refusing to create files in it (root ignores modes)
    import tempfile

    import infoloss

    folder = tmp_path / "ro"
    folder.mkdir()
    mkstemp = tempfile.mkstemp

    def refused(*args, dir=None, **kwargs):  # noqa: A002 (tempfile's own name)
        if dir is not None and Path(dir) == folder:
            raise PermissionError(13, "Permission denied")
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    steps = []
    with pytest.raises(infoloss.InputError, match=r"^cannot write into the records folder .*ro: Permission denied; "
                                                  r"give --records a folder you can write to\.$"):
        infoloss.compare(small["orig"], small["prot"], small["spec"], measures=["suppressions"], records_dir=folder,
                         progress=lambda *step: steps.append(step))
    assert steps == []
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--records", folder / "new")
    assert result.exit_code == 2 and "records folder" in result.stderr and "(it would be created in" in result.stderr


def test_records_at_a_device_or_a_file_is_refused_by_what_it_is(small, tmp_path):
    # /dev/null was called "a file" (found by the hostile-input audit)
    base = ("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "sample_uniques")
    result = run(*base, "--records", "/dev/null")
    assert result.exit_code == 2 and "--records /dev/null is not a folder (a device, pipe or socket); give a " \
        "folder" in " ".join(result.stderr.split())
    result = run(*base, "--records", small["spec"])
    assert result.exit_code == 2 and f"--records {small['spec']} is a file;" in " ".join(result.stderr.split())


def test_spec_overrides_on_the_command_line(small, tmp_path):
    out = tmp_path / "o.json"
    result = run("compare", small["orig"], small["prot"], "--json", out, "--measures", "suppressions",
                 "--nominal", "region,educ", "--continuous", "income", "--weight", "w", "--id", "id")
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["original"]["variables"] == {"region": "nominal", "educ": "nominal", "income": "continuous"}


def test_measure_options_with_set(small, tmp_path):
    out = tmp_path / "o.json"
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--json", out,
                 "--measures", "lambda", "--set", "lambda.missing_rule=sdcmicro")
    assert result.exit_code == 0, result.output
    details = json.loads(out.read_text())["scenarios"][0]["measures"]["lambda"]["details"]
    assert details["missing_rule"] == "sdcmicro"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_given_as_output_is_written_into_not_replaced(small, tmp_path):
    # an atomic write renames a new file over the target: a pipe (or /dev/null, as root) became a regular file
    import os
    import threading

    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--json", fifo,
                 "--measures", "suppressions")
    reader.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert fifo.is_fifo() and json.loads(received[0])["scenarios"][0]["measures"]["suppressions"]


@pytest.mark.skipif(not __import__("os").path.isdir("/dev/fd"), reason="needs /dev/fd")
def test_dev_stdout_of_a_pipe_and_a_shells_process_substitution_are_written_into(small):
    # /dev/stdout of a pipe (and a shell's >(...), /dev/fd/63) resolves to /proc/<pid>/fd/pipe:[n], which no one
    # can open: the write said "No such file or directory" (found by the docs audit)
    import subprocess
    import sys

    command = [sys.executable, "-m", "infoloss.cli", "compare", str(small["orig"]), str(small["prot"]), "--spec",
               str(small["spec"]), "--measures", "suppressions"]
    done = subprocess.run(command + ["--json", "/dev/stdout"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scenarios"][0]["measures"]["suppressions"]
    read, write = __import__("os").pipe()
    with open(read, "rb") as pipe_end:
        process = subprocess.Popen(command + ["--json", f"/dev/fd/{write}"], pass_fds=(write,),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        __import__("os").close(write)
        received = pipe_end.read()
    assert process.wait(timeout=120) == 0, process.stderr.read()
    assert json.loads(received)["scenarios"][0]["measures"]["suppressions"]


def test_emoji_codes_in_names_stay_text(small):
    result = run("compare", small["orig"], small["prot"], "--key", ":cat:")
    assert result.exit_code == 2 and "':cat:'" in result.output


def bad_inputs(small, tmp_path):
    """(arguments, expected message) for inputs that must give exit status 2."""
    o, p, s = small["orig"], small["prot"], small["spec"]
    spec = small["spec_dict"]

    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return path

    def spec_with(**changes):
        new = json.loads(json.dumps(spec))
        for name, settings in changes.items():
            new["variables"][name] = settings
        return write(f"spec{len(list(tmp_path.iterdir()))}.yaml", yaml.safe_dump(new))

    def csv_with(df, name):
        path = tmp_path / name
        df.to_csv(path, index=False)
        return path

    orig_df, prot_df = small["orig_df"], small["prot_df"]
    return [
        ((o, tmp_path / "nope.csv", "--spec", s), "nope.csv"),
        ((o, p, "--spec", s, "--measures", "il1"), "unknown measure 'il1' (did you mean 'il1s'?)"),
        ((o, p, "--spec", write("u.yaml", "variables:\n  region: {scale: nominal, colour: red}\n")), "unknown key 'colour' for variable 'region'"),
        ((o, p, "--spec", spec_with(REGION={"scale": "nominal"})), "variable 'REGION' of the spec is not a column of the original file (did you mean 'region'?)"),
        ((o, p, "--spec", spec_with(educ={"scale": "ordinal", "order": [0, 1, 2]})), "'order' of ordinal variable 'educ' misses categories present in the data: '3'"),
        ((csv_with(orig_df.assign(w=-orig_df.w), "neg.csv"), p, "--spec", s), "weight column 'w' of the original file has 60 negative values"),
        ((csv_with(orig_df.assign(w=orig_df.w.where(orig_df.index > 0)), "nanw.csv"), p, "--spec", s), "weight column 'w' of the original file has 1 missing"),
        ((o, csv_with(prot_df.iloc[:50], "short.csv"), "--spec", s), "have 60 and 50 records, so they cannot be paired by row"),
        ((o, csv_with(prot_df.drop(columns="educ"), "noeduc.csv"), "--spec", s), "'educ' is not a column of the protected file; if it was removed on purpose, mark it 'removed: true'"),
        ((o, csv_with(prot_df.assign(income="high"), "text.csv"), "--spec", s), "'income' is continuous in the spec but the protected file has the text value 'high'"),
        ((o, csv_with(prot_df.assign(id=0), "dupid.csv"), "--spec", s, "--pairing", "id"), "duplicate ids (e.g. 0)"),
        ((o, csv_with(prot_df.assign(id=prot_df.id + 1), "shiftid.csv"), "--spec", s, "--pairing", "id"), "1 original id is not in the protected file and 1 protected id is not in the original"),
        ((o, write("broken.csv", "id,region,educ,income,w\n1,north,2,3.5,1\n2,south,1\n"), "--spec", s), "broken.csv"),
        ((o, write("empty.csv", ""), "--spec", s), "empty.csv"),
        ((o, write("data.xyz", "x"), "--spec", s), "unknown ending '.xyz'"),
        ((o, write("header.csv", "id,region,educ,income,w\n"), "--spec", s), "the protected file " + str(tmp_path / "header.csv") + " has no records"),
        ((csv_with(orig_df.assign(income=np.nan), "allnan.csv"), p, "--spec", s), "'income' is missing in every record of the original file"),
        ((o, p, "--spec", s, "--json", o), "is one of the input files"),
        ((o, p, "--spec", s, "--json", tmp_path / "no" / "dir.json"), "does not exist"),
        ((o, p, "--spec", s, "--json", "-", "--html", "-"), "both name standard output"),
        # a name too long for the file system: checked before any work (was a traceback, exit 1)
        ((o, p, "--spec", s, "--json", tmp_path / ("a" * 300 + ".json")), "name too long"),
        ((o, p, "--spec", s, "--html", tmp_path / ("a" * 300 + ".html")), "name too long"),
        ((o, p, "--spec", s, "--set", "lambda=1"), "must look like MEASURE.OPTION=VALUE"),
        ((o, p, "--spec", s, "--gdu-weights", "half"), "--gdu-weights 'half' must be two numbers"),
        # refused without --records too (it was accepted and ignored)
        ((o, p, "--spec", s, "--records-format", "xml"), "--records-format must be csv or parquet, got 'xml'."),
        # --gdu-weights is checked like --set gdu.weights, and refused when gdu is not run (it was ignored)
        ((o, p, "--spec", s, "--gdu-weights", "7,9"), "the GDU weights must be non-negative and sum to 1"),
        ((o, p, "--spec", s, "--measures", "il1s", "--gdu-weights", "0.3,0.7"), "which is not among the measures run"),
        ((o, p, "--spec", s, "--set", "gdu.weights=a,b"), "such as 0.3,0.7 or [0.3, 0.7], got 'a,b'"),
        # empty values are errors, not options left out (--records '' wrote into the current folder)
        ((o, p, "--spec", s, "--pairing", ""), "--pairing was given an empty value"),
        ((o, p, "--spec", s, "--records", ""), "--records was given an empty value"),
        ((o, p, "--spec", s, "--html", ""), "--html was given an empty value"),
        ((o, p, "--spec", s, "--json", " "), "--json was given an empty value"),
        ((o, p, "--spec", ""), "--spec was given an empty value"),
        ((o, p, "--spec", s, "--key", " , "), "--key was given an empty value"),
        ((o, p, "--spec", s, "--name", ""), "the name of scenario 1 is empty"),
        # a variable named on the command line that is not a column
        ((o, p, "--key", "regoin"), "--key regoin: the original file orig.csv has no column 'regoin' (did you mean 'region'?)"),
        ((o, p, "--weight", "ww"), "--weight ww: the original file orig.csv has no column 'ww'"),
        ((o, p, "--spec", s, "--key", "zzz"), "--key zzz: the spec has no variable 'zzz'; if it is a column of the files, give it a scale too"),
        ((o, p, "--spec", spec_with(educ={"scale": "ordinal", "order": "0, 1, 2, 3"})), "the 'order' of variable 'educ' must be a list of its categories"),
        ((o, write("openquote.csv", 'id,region,educ,income,w\n1,north,2,3.5,"1\n2,south,1,4.5,1\n'), "--spec", s), "a double quote on line 2 opens a value that is never closed"),
    ]


def test_every_bad_input_exits_2_with_one_clear_sentence(small, tmp_path):
    cases = bad_inputs(small, tmp_path)
    inputs = [small["orig"], small["prot"], small["spec"]]
    before = digest(inputs)
    for args, message in cases:
        result = run("compare", *args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("infoloss: error: "), result.stderr
        assert message in " ".join(result.stderr.split()), (message, result.stderr)
        assert "Traceback" not in result.output + result.stderr
    assert digest(inputs) == before


def test_spec_command_bad_file(tmp_path):
    result = run("spec", tmp_path / "missing.sav")
    assert result.exit_code == 2 and "missing.sav" in result.stderr


def test_console_script_exit_codes(small):
    """The real entry point: status 2 and no traceback for bad input, 0 for good."""
    bad = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare", str(small["orig"]), "missing.csv"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.startswith("infoloss: error:")
    usage = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare"], capture_output=True, text=True)
    assert usage.returncode == 2
    # click's usage errors are one line like every other error, not a boxed panel
    for args, message in ((["compare"], "Missing argument 'original'; see 'infoloss compare --help'."),
                          (["compare", "a.csv", "b.csv", "--jsn", "x"], "No such option: --jsn (Possible options: --json"),
                          (["compare", "a.csv", "b.csv", "--min-cell", "0"], "Invalid value for '--min-cell'"),
                          (["nosuch"], "No such command 'nosuch'; see 'infoloss --help'."),
                          # one sentence (was "No such command 'comapre'. Did you mean 'compare'?; see ...")
                          (["comapre"], "No such command 'comapre' (did you mean 'compare'?); see 'infoloss --help'.")):
        done = subprocess.run([sys.executable, "-m", "infoloss.cli", *args], capture_output=True, text=True)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("infoloss: error: ") and done.stderr.count("\n") == 1, done.stderr
        assert message in done.stderr, (message, done.stderr)
    # infoloss without a command asks for the help, like infoloss --help: nothing is wrong (it exited 2 with no message)
    bare = subprocess.run([sys.executable, "-m", "infoloss.cli"], capture_output=True, text=True)
    assert bare.returncode == 0 and "compare" in bare.stdout and bare.stderr == ""
    assert bare.stdout.count("Usage") == 1  # printed once (it was printed twice: found by the docs audit)
    good = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare", str(small["orig"]), str(small["prot"]),
                           "--spec", str(small["spec"]), "--measures", "suppressions", "--json", "-"],
                          capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["scenarios"][0]["measures"]["suppressions"]["value"] == 2.0


def test_sigterm_while_writing_cleans_up_like_ctrl_c(small, tmp_path):
    """SIGTERM (kill, timeout, a scheduler's limit) during the write of the report leaves no temporary file and no
    new output, and exits 143; it left a partial hidden .out.html.XXXX.tmp (found by the hostile-input audit)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.json").write_text("old")
    code = ("import os, signal, sys; from infoloss import cli\n"
            "os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGTERM)  # the signal arrives mid-write\n"
            "sys.argv = ['infoloss', 'compare', *sys.argv[1:]]; cli.main()")
    done = subprocess.run([sys.executable, "-c", code, str(small["orig"]), str(small["prot"]), "--spec",
                           str(small["spec"]), "--measures", "suppressions", "--html", str(out / "new.html"),
                           "--json", str(out / "old.json")], capture_output=True, text=True)
    assert done.returncode == 143 and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["old.json"] and (out / "old.json").read_text() == "old"


def test_quick_exit_keeps_the_status_the_output_and_the_atexit_functions():
    """cli._exit_now ends like sys.exit (status, message, flushed output, atexit functions), without the teardown."""
    code = ("import atexit, sys; from infoloss import cli; atexit.register(print, 'atexit ran'); "
            "sys.stdout.write('unflushed'); cli._exit_now({!r})")
    for status, returncode in ((None, 0), (0, 0), (2, 2), ("a message", 1)):
        done = subprocess.run([sys.executable, "-c", code.format(status)], capture_output=True, text=True)
        assert done.returncode == returncode, done.stderr
        assert done.stdout == "unflushedatexit ran\n"
        assert done.stderr == ("a message\n" if status == "a message" else "")


def test_example_command_writes_and_refuses_to_overwrite(tmp_path):
    target = tmp_path / "ex"
    result = run("example", target)
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in target.iterdir())
    assert {"original.csv", "spec.yaml"} <= set(files)
    before = digest(list(target.iterdir()))
    again = run("example", target)  # the example already there, byte for byte: left as it is (README line 1 again)
    assert again.exit_code == 0, again.output
    assert digest(list(target.iterdir())) == before
    (target / "spec.yaml").write_text((target / "spec.yaml").read_text() + "# my note\n")
    edited = digest(list(target.iterdir()))
    refused = run("example", target)  # a file that differs is never overwritten
    assert refused.exit_code == 2 and "already holds" in refused.output
    assert digest(list(target.iterdir())) == edited


def test_a_cardinality_warning_is_one_line_once_and_none_when_the_run_fails(tmp_path):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"code": [f"c{i}" for i in range(300)], "x": rng.normal(size=300)})
    o, p = tmp_path / "o.csv", tmp_path / "p.csv"
    df.to_csv(o, index=False)
    df.assign(x=df.x + 1).to_csv(p, index=False)
    ok = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare", str(o), str(p), "--all", "--measures",
                         "il1s", "--json", str(tmp_path / "r.json")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr.count("looks like an identifier") == 1 and "Warning:" not in ok.stderr  # no raw warning
    bad = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare", str(o), str(p), str(tmp_path / "no.csv"),
                          "--all", "--measures", "il1s", "--json", str(tmp_path / "r2.json")], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stderr.startswith("infoloss: error:")


@pytest.mark.parametrize("case", ["original", "protected"])
def test_records_never_replace_an_input_file(tmp_path, case):
    # an original named records_original.csv (or a protected file records_<name>.csv) in the --records folder
    # was replaced by the per-record risk table
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 100), "sex": rng.choice(["m", "f"], 100)})
    original, protected = ((tmp_path / "records_original.csv", tmp_path / "prot.csv") if case == "original"
                           else (tmp_path / "orig.csv", tmp_path / "records_masked.csv"))
    frame.to_csv(original, index=False)
    frame.to_csv(protected, index=False)
    (tmp_path / "spec.yaml").write_text("variables:\n  age: {scale: nominal, role: key}\n"
                                        "  sex: {scale: nominal, role: key}\n")
    before = {p: p.read_bytes() for p in (original, protected)}
    result = CliRunner().invoke(app, ["compare", str(original), str(protected), "--name", "masked", "--spec",
                                      str(tmp_path / "spec.yaml"), "--measures", "sample_uniques",
                                      "--records", str(tmp_path)])
    assert result.exit_code == 2 and "would replace an input file" in result.output
    assert all(p.read_bytes() == content for p, content in before.items())


def test_running_out_of_memory_is_one_sentence_and_exit_2(monkeypatch, capsys):
    # a MemoryError or Arrow's ArrowMemoryError ended in a traceback with exit 1 ("a bug")
    import pyarrow as pa

    import infoloss.cli as cli

    for error in (MemoryError(), pa.ArrowMemoryError("realloc of size 1317011456 failed")):
        def boom(*args, error=error, **kwargs):
            raise error

        statuses = []
        monkeypatch.setattr(cli, "app", boom)
        monkeypatch.setattr(cli, "_exit_now", statuses.append)
        cli.main()
        assert statuses == [2]
    monkeypatch.setattr(cli, "app", lambda *a, **k: (_ for _ in ()).throw(ZeroDivisionError()))
    with pytest.raises(ZeroDivisionError):  # a bug still ends as one
        cli.main()


def test_measures_repeat_add_up_take_all_and_suggest_across_case(tmp_path):
    from infoloss.compare import _select_measures
    from infoloss.errors import InputError

    assert _select_measures(["il1s", "all"]) == _select_measures("all")
    with pytest.raises(InputError, match="did you mean 'il1s'"):
        _select_measures(["IL1S"])
    from infoloss.synth import write_example

    write_example(tmp_path)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "original.csv"), str(tmp_path / "protected_noise.csv"),
                                      "--spec", str(tmp_path / "spec.yaml"), "--measures", "il1s",
                                      "--measures", "lambda", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert list(json.loads(out.read_text())["scenarios"][0]["measures"]) == ["il1s", "lambda"]  # not the last only


def test_a_failed_run_leaves_no_records_folder_it_created(tmp_path):
    from infoloss.synth import write_example

    write_example(tmp_path)
    (tmp_path / "broken.csv").write_text("a,b\n1\n2,3,4\n")
    folder = tmp_path / "records"
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "original.csv"), str(tmp_path / "protected_noise.csv"),
                                      str(tmp_path / "broken.csv"), "--spec", str(tmp_path / "spec.yaml"),
                                      "--measures", "sample_uniques", "--records", str(folder)])
    assert result.exit_code == 2, result.output
    assert not folder.exists()


def test_set_refuses_a_key_given_twice_as_the_spec_does(tmp_path):
    from infoloss.synth import write_example

    write_example(tmp_path)
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "original.csv"), str(tmp_path / "protected_noise.csv"),
                                      "--spec", str(tmp_path / "spec.yaml"), "--measures", "iloss",
                                      "--set", "iloss.weights={age: 1, age: 2}"])
    assert result.exit_code == 2 and "gives 'age' twice" in result.output


def test_markup_and_control_characters_in_names_and_paths_are_shown_as_text(tmp_path):
    # an output path with "[/x]" raised rich's MarkupError (exit 1) after writing; ESC sequences reached the terminal
    from infoloss.synth import write_example

    write_example(tmp_path)
    (tmp_path / "a[").mkdir()
    html = tmp_path / "a[" / "x][red]b.html"  # the path holds "[/x]" and "[red]"
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "original.csv"), str(tmp_path / "protected_noise.csv"),
                                      "--spec", str(tmp_path / "spec.yaml"), "--measures", "il1s",
                                      "--html", str(html)])
    assert result.exit_code == 0, result.output
    assert html.exists() and "a[/x][red]b.html" in result.output
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "original.csv"), str(tmp_path / "protected_noise.csv"),
                                      "--spec", str(tmp_path / "spec.yaml"), "--measures", "il1s,pmse",
                                      "--name", "s\x1b[31mred\u202e"])
    assert result.exit_code == 0, result.output
    assert "\x1b[31m" not in result.output and "\u202e" not in result.output and "\\x1b[31mred" in result.output


def test_the_terminal_summary_says_the_risk_utility_choice_asked_for(tmp_path):
    # --max-risk without --json or --html printed the measures only: the choice was in the JSON alone
    from infoloss.synth import write_example

    original, noise, strong, spec = write_example(tmp_path, n=600)
    r = runner.invoke(app, ["compare", str(original), str(noise), str(strong), "--spec", str(spec),
                            "--measures", "global_risk,gdu", "--max-risk", "0.5"], terminal_width=300)
    assert r.exit_code == 0, r.output
    # the line names the measures: without key variables the map falls back to another risk measure
    said = " ".join(r.output.split())  # the summary wraps at the console's width
    assert "risk-utility choice (--max-risk 0.5; risk global_risk, utility gdu): " in said
    assert "has the least loss among them" in said
    r = runner.invoke(app, ["compare", str(original), str(noise), "--spec", str(spec), "--measures", "il1s",
                            "--max-loss", "0.2"], terminal_width=300)
    assert "risk-utility choice: none, no risk measure was chosen and none of" in r.output
    r = runner.invoke(app, ["compare", str(original), str(noise), "--spec", str(spec), "--measures", "il1s"])
    assert "risk-utility choice" not in r.output


def test_options_that_would_be_ignored_are_refused(small, tmp_path):
    out = tmp_path / "o.json"
    r = runner.invoke(app, ["compare", str(small["orig"]), str(small["prot"]), "--spec", str(small["spec"]),
                            "--measures", "il1s", "--json", str(out), "--min-cell", "10"])
    assert r.exit_code == 2 and "--min-cell sets the smallest count shown in safe mode; add --safe" in r.output
    r = runner.invoke(app, ["compare", str(small["orig"]), str(small["prot"]), "--spec", str(small["spec"]),
                            "--measures", "il1s", "--json", str(out), "--family-weights", "record=1"])
    assert r.exit_code == 2 and "--family-weights sets the HTML report's overall score; add --html" in r.output
    assert not out.exists()


def test_the_measures_list_piped_has_one_line_per_measure_id_first():
    from infoloss import registry

    r = runner.invoke(app, ["measures"])
    lines = r.output.splitlines()
    ids = [m.id for m in registry.registered()]
    assert [line.split("\t")[0] for line in lines] == ids
    assert lines[ids.index("pmse_ratio")].split("\t")[1] == "propensity"


# ---------------------------------------------------------------------------
# found by the second hostile-input audit
# ---------------------------------------------------------------------------

def test_a_column_no_spec_can_compare_is_left_out_of_an_inferred_spec_with_a_warning(small, tmp_path):
    # it was "variable 'empty' is missing in every record of the original file; remove it from the spec" with no
    # spec given, and 'infoloss spec' wrote it as "empty: {scale: nominal}   # number with only 0 distinct values"
    o, p = tmp_path / "o_empty.csv", tmp_path / "p_empty.csv"
    small["orig_df"].assign(empty=np.nan).to_csv(o, index=False)
    small["prot_df"].assign(empty=np.nan).to_csv(p, index=False)
    warning = ("infoloss: warning: column 'empty' is left out of the inferred spec: it is missing in every record, "
               "so there is nothing to compare.")
    out = tmp_path / "out.json"
    r = run("compare", o, p, "--measures", "il1s,suppressions", "--json", out)
    assert r.exit_code == 0, r.output
    assert warning in " ".join(r.stderr.split()) and "empty" not in json.loads(out.read_text())["original"]["variables"]
    r = run("spec", o, "-o", tmp_path / "s.yaml")
    assert r.exit_code == 0 and warning in " ".join(r.stderr.split())
    text = (tmp_path / "s.yaml").read_text()
    assert "  # empty:   # left out: it is missing in every record, so there is nothing to compare\n" in text
    assert "empty: {" not in text
    assert run("compare", o, p, "--spec", tmp_path / "s.yaml", "--measures", "il1s", "--json", out).exit_code == 0
    # named on the command line: refused with why; listed in a spec: refused as before
    r = run("compare", o, p, "--nominal", "empty")
    assert r.exit_code == 2 and "--nominal empty: the column 'empty' of the original file o_empty.csv cannot be " \
                                "used: it is missing in every record" in " ".join(r.stderr.split())
    listed = tmp_path / "listed.yaml"
    listed.write_text("variables:\n  income: {scale: continuous}\n  empty: {scale: nominal}\n")
    r = run("compare", o, p, "--spec", listed)
    assert r.exit_code == 2 and "variable 'empty' is missing in every record of the original file; remove it from " \
                                "the spec." in " ".join(r.stderr.split())
    # nothing left at all: said so, not "the spec lists no variable to analyse"
    (tmp_path / "only.csv").write_text("e,f\n,\n,\n")
    r = run("compare", tmp_path / "only.csv", tmp_path / "only.csv")
    assert r.exit_code == 2 and ("the original file has no column to analyse: the inferred spec leaves out 'e' (it "
                                 "is missing in every record, so there is nothing to compare), and 1 other column "
                                 "('infoloss spec' says why for each).") in " ".join(r.stderr.split())


def test_a_nested_column_is_written_commented_out_by_infoloss_spec(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"x": np.arange(30) / 7, "tags": [[1, 2]] * 30, "pair": [{"a": 1}] * 30}), path)
    r = run("spec", path)
    assert r.exit_code == 0, r.output
    assert "  # tags:   # left out: it holds lists or mappings (a nested column), which cannot be compared" in r.stdout
    assert "  # pair:   # left out: it holds lists or mappings" in r.stdout and "remove this line" not in r.stdout
    assert yaml.safe_load(r.stdout)["variables"] == {"x": {"scale": "continuous"}}


def test_options_that_would_be_ignored_or_given_twice_are_refused(small, tmp_path):
    base = ["compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "il1s,gdu,global_risk",
            "--json", tmp_path / "o.json"]
    for extra, message in (
            # --records-format without --records was ignored (as --min-cell without --safe would be)
            (["--records-format", "parquet"], ("--records-format sets the format of the per-record files of "
                                               "--records; add --records, or drop --records-format.")),
            # a key given twice: the last one won
            (["--ru", "risk=global_risk,risk=k_anonymity_violations,utility=gdu"],
             "--ru gives 'risk' twice (global_risk and k_anonymity_violations); give one risk measure."),
            (["--html", tmp_path / "o.html", "--family-weights", "tables=1,tables=5"],
             "--family-weights gives the family 'tables' twice; give each family one weight.")):
        r = run(*base, *extra)
        assert r.exit_code == 2 and r.stderr == f"infoloss: error: {message}\n", r.stderr
    assert not (tmp_path / "o.json").exists()
    r = run(*base, "--records", tmp_path / "rec", "--records-format", "parquet")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "rec" / "records_prot.parquet").exists()


def test_set_for_an_unknown_measure_suggests_the_closest_id(small):
    import infoloss

    # it was "names the measure 'suda', which is not among the measures run"
    r = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--set", "suda.missing=abc")
    assert r.exit_code == 2 and r.stderr == ("infoloss: error: --set 'suda.missing=abc' names 'suda', which is not a "
                                             "measure (did you mean 'suda_dis'?); 'infoloss measures' lists them.\n")
    r = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "il1s",
            "--set", "suda_dis.missing=abc")
    assert r.exit_code == 2 and "names the measure 'suda_dis', which is not among the measures run" in r.stderr
    with pytest.raises(infoloss.InputError, match=r"options were given for 'suda', which is not a measure \(did you "
                                                  r"mean 'suda_dis'\?\)"):
        infoloss.compare(small["orig_df"], small["prot_df"], small["spec_dict"], options={"suda": {"missing": 1}})


@pytest.mark.parametrize("renamed, hint", [("Income", "(did you mean 'Income'?)"),
                                           ("income ", ("(did you mean 'income ', which differs in the spaces at its "
                                                        "end?)"))])
def test_a_column_renamed_in_the_protected_file_gets_a_did_you_mean(small, tmp_path, renamed, hint):
    # the original file's message had one, the protected file's did not; a trailing space is invisible
    prot = tmp_path / "renamed.csv"
    small["prot_df"].rename(columns={"income": renamed}).to_csv(prot, index=False)
    r = run("compare", small["orig"], prot, "--spec", small["spec"])
    assert r.exit_code == 2
    assert f"variable 'income' is not a column of the protected file {hint}; rename the column if it was renamed, " \
           "or if it was removed on purpose, mark it 'removed: true' in the spec." in " ".join(r.stderr.split())


def test_a_time_of_day_column_declared_continuous_is_named_as_times(tmp_path):
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    # it was "holds values that are not single numbers or text (such as lists from a nested ... column)"
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": np.arange(20) / 3, "t": [datetime.time(1, 2, 3)] * 20}), path)
    spec = tmp_path / "s.yaml"
    spec.write_text("variables:\n  x: {scale: continuous}\n  t: {scale: continuous}\n")
    r = run("compare", path, path, "--spec", spec)
    assert r.exit_code == 2 and r.stderr == (
        "infoloss: error: variable 't' holds times of day (such as 01:02:03) in the original file, which infoloss does "
        "not read as numbers; convert them to numbers first, e.g. seconds since midnight (hour * 3600 + minute * 60 + "
        "second), or declare the variable nominal.\n")
    spec.write_text("variables:\n  x: {scale: continuous}\n  t: {scale: nominal}\n")
    assert run("compare", path, path, "--spec", spec, "--measures", "il1s").exit_code == 0


def test_times_of_day_written_as_text_are_named_so_by_spec_and_compare(tmp_path):
    # a CSV's 07:30 was "text, 93 distinct values; looks like an identifier", and continuous it was "the text value
    # '20:24' ...; list '20:24' as a missing code"
    times = [f"{h:02d}:{m:02d}" for h in range(24) for m in (0, 15, 30, 45)]
    path = tmp_path / "o.csv"
    pd.DataFrame({"t": times, "x": np.arange(len(times)) / 3}).to_csv(path, index=False)
    r = run("spec", path)
    assert r.exit_code == 0
    assert "t: {scale: nominal}   # text, 96 distinct values; looks like times of day ('00:00'), compared as " \
           "categories; to compare them as numbers, give them as minutes or seconds since midnight" in r.stdout
    assert "identifier" not in r.stderr
    r = run("compare", path, path, "--continuous", "t")
    assert r.exit_code == 2 and r.stderr.startswith(
        "infoloss: error: variable 't' holds times of day (such as 00:00) in the original file")


def test_compare_without_a_spec_parses_the_original_csv_once(small, monkeypatch):
    # once to infer the spec, once to compare: the second parse of a 1,000,000 x 50 file took 1.7 s
    from infoloss import io_csv

    parsed = []
    real = io_csv._parse_csv
    monkeypatch.setattr(io_csv, "_parse_csv", lambda *a, **k: parsed.append(str(a[0])) or real(*a, **k))
    result = run("compare", small["orig"], small["prot"], "--measures", "il1s,ks")
    assert result.exit_code == 0, result.output
    assert parsed.count(str(small["orig"])) == 1 and parsed.count(str(small["prot"])) == 1
    assert not io_csv._kept


def test_compare_parses_the_csv_files_ahead_and_gives_arrow_its_threads_back(small, monkeypatch):
    # the parse runs while pandas and scipy import (issue 14): once per file, with a spec or without, and nothing is
    # left behind, whether compare succeeds or fails
    import pyarrow as pa

    from infoloss import io_csv

    parsed, threads = [], pa.cpu_count()
    real = io_csv._parse_csv
    monkeypatch.setattr(io_csv, "_parse_csv", lambda *a, **k: parsed.append(str(a[0])) or real(*a, **k))
    monkeypatch.setattr(io_csv, "read_ahead", lambda *a, real=io_csv.read_ahead, **k: parsed.append("ahead") or real(*a, **k))
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "il1s,ks")
    assert result.exit_code == 0, result.output
    assert parsed[0] == "ahead" and sorted(parsed[1:]) == sorted(map(str, (small["orig"], small["prot"])))
    assert not io_csv._ahead and not io_csv._arrow_threads and pa.cpu_count() == threads
    result = run("compare", small["orig"], small["prot"], "--json", small["orig"])  # refused after the read-ahead
    assert result.exit_code == 2, result.output
    assert not io_csv._ahead and not io_csv._arrow_threads and pa.cpu_count() == threads


def test_compare_parses_large_csv_files_ahead_with_arrows_serial_reader(small, monkeypatch):
    # the original and first protected file together of SERIAL_PARSE_MIN_BYTES or more (issue 14); smaller ones
    # (here the default threshold) are parsed by Arrow's pool as before
    from infoloss import cli, io_csv

    asked = []
    monkeypatch.setattr(io_csv, "read_ahead", lambda *a, real=io_csv.read_ahead, **k: asked.append(k) or real(*a, **k))
    args = ("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "il1s")
    assert run(*args).exit_code == 0
    monkeypatch.setattr(cli, "SERIAL_PARSE_MIN_BYTES", 0)
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert asked == [{"serial": False}, {"serial": True}] and not io_csv._ahead


def test_files_in_a_folder_that_may_not_be_entered_are_one_sentence(small, tmp_path, monkeypatch):
    # Path.exists() raises PermissionError there: a traceback with exit 1 for the data files, the spec, a hierarchy
    # or PRAM file and the records folder (found by the hostile-input audit; tests run as root, so os.stat refuses)
    import os

    import infoloss

    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "o.csv").write_bytes(Path(small["orig"]).read_bytes())
    (locked / "h.csv").write_text("a;*\nb;*\n")
    real_stat = os.stat

    def refused(path, *args, **kwargs):
        if str(path).startswith(str(locked) + os.sep):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", refused)
    cases = [("compare", locked / "o.csv", small["prot"], "--spec", small["spec"]),
             ("compare", small["orig"], locked / "o.csv", "--spec", small["spec"]),
             ("spec", locked / "o.csv"),
             ("compare", small["orig"], small["prot"], "--spec", locked / "s.yaml"),
             ("compare", small["orig"], small["prot"], "--spec", small["spec"], "--records", locked / "rec")]
    for args in cases:
        result = run(*args)
        assert result.exit_code == 2 and "cannot be reached (Permission denied); check the permissions of the " \
            "folders on its path." in " ".join(result.stderr.split()), (args, result.stderr)
    with pytest.raises(infoloss.InputError, match="cannot be reached"):
        infoloss.compare(locked / "o.csv", small["prot"], small["spec"])


def test_a_report_named_like_a_per_record_file_is_refused(small, tmp_path):
    # the per-record files were written, then replaced by the JSON and the HTML report, with exit 0 (found by the
    # hostile-input audit)
    records = tmp_path / "rec"
    for flag, out in (("--json", records / "records_original.csv"), ("--html", records / "records_prot.csv")):
        result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "global_risk",
                     "--records", records, flag, out)
        assert result.exit_code == 2, result.output
        assert f"{flag} {out} is one of the per-record files that --records writes" in " ".join(result.stderr.split())
    assert not records.exists()
    # a report in the records folder that the run creates: "the folder ... does not exist" before
    result = run("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "global_risk",
                 "--records", records, "--json", records / "report.json")
    assert result.exit_code == 0, result.output
    assert (records / "report.json").is_file() and (records / "records_original.csv").is_file()


def test_after_the_first_ctrl_c_or_sigterm_further_ones_wait_for_the_cleanup():
    # a burst of Ctrl-C interrupted the cleanup: staged per-record files were left behind, or a traceback printed
    # (found by the hostile-input audit)
    import os
    import signal

    from infoloss.cli import _Terminated, _handle_sigterm

    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        _handle_sigterm()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)  # handled in this thread as os.kill returns
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGINT)  # ignored now
        with pytest.raises(_Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])


def test_a_data_file_that_is_a_loop_of_symbolic_links_says_so(tmp_path):
    # it said "does not exist; check the path" (found by the hostile-input audit)
    (tmp_path / "a.csv").symlink_to(tmp_path / "b.csv")
    (tmp_path / "b.csv").symlink_to(tmp_path / "a.csv")
    result = run("compare", tmp_path / "a.csv", tmp_path / "a.csv")
    assert result.exit_code == 2 and "its symbolic links point at each other" in result.stderr


def test_an_output_path_through_a_file_a_dangling_link_or_ending_in_a_slash_says_what_is_wrong(small, tmp_path):
    # 'base.csv/x.json' said "the folder base.csv does not exist" (it is a file); a dangling link said "the folder
    # . does not exist"; 'newdir/' wrote a file named newdir with exit 0 (found by an audit)
    args = ("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "il1s")
    (tmp_path / "dang.json").symlink_to(tmp_path / "nowhere" / "out.json")
    for flag, out, said in (
        ("--json", small["orig"] / "x.json", f"cannot write {small['orig'] / 'x.json'}: {small['orig']} is a file, "
                                             "not a folder; give a path inside a folder."),
        ("--html", tmp_path / "dang.json", f"cannot write {tmp_path / 'dang.json'}: it is a symbolic link to "
                                           f"{tmp_path / 'nowhere' / 'out.json'}, whose folder does not exist"),
        ("--json", f"{tmp_path}/newdir/", "--json needs a file name, not a folder."),
        ("--html", f"{tmp_path}/newdir/", "--html needs a file name, not a folder."),
        ("--records", small["orig"] / "rec", f"{small['orig']} is a file, not a folder"),
    ):
        result = run(*args, flag, out)
        assert result.exit_code == 2 and said in " ".join(result.stderr.split()), result.output
    assert not (tmp_path / "newdir").exists() and not (tmp_path / "nowhere").exists()
    result = run("spec", small["orig"], "-o", f"{tmp_path}/newdir/")
    assert result.exit_code == 2 and "-o needs a file name, not a folder." in " ".join(result.stderr.split())
    result = run("hierarchy", f"{tmp_path}/newdir/", "--mask", "right", "--values", "100..102")
    assert result.exit_code == 2 and "needs a file name, not a folder." in " ".join(result.stderr.split())
    assert not (tmp_path / "newdir").exists()
    from infoloss import compare
    from infoloss.errors import InputError

    report = compare(small["orig"], [small["prot"]], small["spec"], measures=["il1s"])
    for write in (report.to_json, report.to_html):
        with pytest.raises(InputError, match="the output file needs a file name, not a folder"):
            write(f"{tmp_path}/newdir/")
    assert not (tmp_path / "newdir").exists()


def test_a_column_that_differs_only_in_its_unicode_form_says_so(tmp_path):
    # 'Région' composed in one file and decomposed in the other said "(did you mean 'Région'?)", a name that looks
    # the same (found by an audit); the columns are not matched silently
    import unicodedata

    composed, decomposed = (unicodedata.normalize(form, "Région") for form in ("NFC", "NFD"))
    for name, path in ((composed, tmp_path / "nfc.csv"), (decomposed, tmp_path / "nfd.csv")):
        pd.DataFrame({name: ["a", "b"] * 10, "v": np.arange(20.0)}).to_csv(path, index=False)
    said = ("differs from it only in its Unicode form ('Re\\u0301gion' against 'R\\xe9gion': composed and "
            "decomposed accents look alike); write both in the same form, re-typing the name or re-saving the file")
    r = run("compare", tmp_path / "nfc.csv", tmp_path / "nfd.csv", "--json", tmp_path / "r.json")
    assert r.exit_code == 2 and r.stderr == f"infoloss: error: variable {composed!r} is not a column of the protected " \
                                            f"file: the column {decomposed!r} {said}.\n"
    assert not (tmp_path / "r.json").exists()
    r = run("compare", tmp_path / "nfd.csv", tmp_path / "nfd.csv", "--key", composed)
    assert r.exit_code == 2 and said in " ".join(r.stderr.split())


def test_a_measure_option_given_twice_is_refused(small):
    # --set pmse.seed=2 --set pmse.seed=3 kept the last silently, while --ru refuses a choice given twice (found by
    # an audit)
    args = ("compare", small["orig"], small["prot"], "--spec", small["spec"], "--measures", "pmse,gdu")
    r = run(*args, "--set", "pmse.seed=2", "--set", "pmse.seed=3")
    assert r.exit_code == 2 and r.stderr == ("infoloss: error: --set gives pmse.seed twice (2 and 3); give each "
                                             "measure option once.\n")
    r = run(*args, "--set", "gdu.weights=[0.5, 0.5]", "--gdu-weights", "0.4,0.6")
    assert r.exit_code == 2 and "--gdu-weights and --set gdu.weights both give the weights of 'gdu'" in r.stderr

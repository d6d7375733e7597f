"""What a user's script does with the installed package (tests/install/check_pip_install.sh runs it
with the venv's python, from a folder outside the checkout):
    api_script.py RESULTS.json LAYERS
RESULTS.json: what `layerbench run -l LAYERS -w vector_add` wrote; LAYERS: comma-separated.
Exits non-zero, saying why, when any check fails."""
import sys
from pathlib import Path

import layerbench

path, layers = sys.argv[1], sys.argv[2].split(",")
here = Path(layerbench.__file__).resolve()
assert "site-packages" in here.parts, f"layerbench imported from {here}, not from the installed package"

# The command line's file, through the one reader.
written = layerbench.load(path)
assert [c.layer for c in written.cases] == layers, written.to_rows()
for case in written.cases:
    assert (case.workload, case.status, case.verified) == ("vector_add", "ok", True), case
    assert case.median_ms and case.median_ms > 0 and case.gbps and case.gbps > 0, case

# The same run from Python.
again = layerbench.run(workloads=["vector_add"], layers=layers, sizes=[written.cases[0].size[0]], min_time=0.01)
assert [(c.layer, c.status, c.verified) for c in again.cases] == [(layer, "ok", True) for layer in layers], \
    again.to_rows()
rows = again.to_rows()
assert len(rows) == len(layers) and rows[0]["workload"] == "vector_add", rows

assert again.path is None  # its temporary file is gone: no path to it

# Two runs compared, case by case, with the threshold in percent.
comparison = layerbench.compare(written, again, threshold=5)
assert isinstance(comparison, layerbench.Comparison) and comparison.threshold == 5.0
assert len(comparison.rows) == len(layers), comparison

# The one version: the binary's, the package's and the results file's.
import subprocess
said = subprocess.run([sys.executable, "-m", "layerbench", "--version"], capture_output=True, text=True).stdout
assert said.startswith(f"layerbench {layerbench.__version__} "), (said, layerbench.__version__)
assert written.context["layerbench"]["version"] == layerbench.__version__, written.context["layerbench"]

# A bad name: one exception, naming it.
try:
    layerbench.run(workloads=["vector_add"], layers=["no-such-layer"], sizes=[1000])
except layerbench.UsageError as e:
    assert "no-such-layer" in str(e), e
else:
    raise AssertionError("run(layers=['no-such-layer']) raised nothing")

print(f"api_script: ok: {len(layers)} layer(s) through load, run, to_rows, compare; UsageError for a bad layer")

"""Why ``/stats`` draws its PNG with the standard library: first use (import + one render) and the
peak memory it adds, ours against Pillow and matplotlib (Agg), each in a fresh interpreter.

Neither library is a dependency: give an interpreter that has them, e.g.
``python -m venv /tmp/plot && /tmp/plot/bin/pip install matplotlib pillow`` then
``python -m benchmarks.compare_png --python /tmp/plot/bin/python``. The three draw comparable bar
charts (two panels, 20 and 100 bars); the figure that matters is the cost of the first ``/stats``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = {
    "standard library (bot.ui.histogram)": (
        "import bot.ui.histogram as h\n"
        "b = h.render([(20, {f: 100 + f for f in range(1, 21)}), (100, {f: 50 for f in range(1, 101)})])"
    ),
    "Pillow": (
        "import io\nfrom PIL import Image, ImageDraw\n"
        "im = Image.new('P', (640, 336)); im.putpalette([255, 255, 255, 88, 101, 242])\n"
        "d = ImageDraw.Draw(im)\n"
        "for f in range(20): d.rectangle((10 + f * 30, 50, 30 + f * 30, 150), fill=1)\n"
        "for f in range(100): d.rectangle((10 + f * 6, 200, 14 + f * 6, 320), fill=1)\n"
        "buf = io.BytesIO(); im.save(buf, 'PNG'); b = buf.getvalue()"
    ),
    "matplotlib (Agg)": (
        "import io\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(2, 1, figsize=(6.4, 3.4))\n"
        "ax[0].bar(range(1, 21), [100 + f for f in range(1, 21)]); ax[1].bar(range(1, 101), [50] * 100)\n"
        "buf = io.BytesIO(); fig.savefig(buf, format='png'); b = buf.getvalue()"
    ),
}
HARNESS = """
import resource, time
t0 = time.perf_counter(); r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
{snippet}
ms = (time.perf_counter() - t0) * 1000
mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024
print(f"{{ms:.0f}} ms first import and render, +{{mib:.1f}} MiB peak RSS, PNG {{len(b):,}} B")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="an interpreter with Pillow and matplotlib")
    args = parser.parse_args()
    for name, snippet in SNIPPETS.items():
        out = subprocess.run(
            [args.python, "-c", HARNESS.format(snippet=snippet)],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(ROOT)},
        )
        line = out.stdout.strip() or "not available (" + (out.stderr.strip().splitlines() or ["?"])[-1] + ")"
        print(f"{name}: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

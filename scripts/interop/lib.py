"""Shared by the interop checks (scripts/interop.sh): result lines, ffprobe readings, commands.

Every check prints one line, `PASS: name`, `FAIL: name: why` or `SKIP: name: why`;
scripts/interop.sh counts them.
"""
import json
import subprocess
import sys

failures = 0


def result(name, ok, why=""):
    """Prints a check's line; `ok` None is a skip."""
    global failures
    if ok is None:
        print(f"SKIP: {name}: {why}", flush=True)
    elif ok:
        print(f"PASS: {name}" + (f" ({why})" if why else ""), flush=True)
    else:
        failures += 1
        print(f"FAIL: {name}: {why}", flush=True)


def run(arguments, **options):
    """Runs a command, returning (exit status, stdout, stderr) as text."""
    process = subprocess.run(arguments, capture_output=True, text=True, **options)
    return process.returncode, process.stdout, process.stderr


def ffprobe(path):
    """Streams and format of a file as ffprobe (FFmpeg's reading) reports them."""
    status, out, err = run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path])
    if status != 0:
        raise RuntimeError(f"ffprobe {path}: {err.strip()}")
    return json.loads(out)


def ffprobe_frame_times(path):
    """Presentation time of every decoded frame of the first video stream, in seconds."""
    return ffprobe_times(path, "v:0", "frame")


def ffprobe_times(path, selection, entry):
    """Presentation times of a stream's frames or packets (`entry`), in seconds, in file order."""
    status, out, err = run(["ffprobe", "-v", "error", "-select_streams", selection, "-show_entries", f"{entry}=pts_time",
                            "-of", "csv=p=0", path])
    if status != 0:
        raise RuntimeError(f"ffprobe {path}: {err.strip()}")
    times = (line.split(",")[0] for line in out.split())
    return [float(time) for time in times if time and time != "N/A"]


def stream(probe, kind):
    """The first stream of a kind (`video`, `audio`) in an ffprobe reading, or None."""
    return next((s for s in probe["streams"] if s.get("codec_type") == kind), None)


def largest_difference(a, b):
    """The largest absolute difference of two equally long lists of numbers."""
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def finish():
    sys.exit(1 if failures else 0)

#!/usr/bin/python3
"""deploy/slurm/array.sh under a real sbatch (scripts/interop.sh; needs a cluster: run it through
`scripts/slurm-cluster.sh run DIR -- slurm_array.py FXREPLAY WORKDIR`, which sets SLURM_CONF).

Four generated recordings (one longer) in a manifest, `sbatch --array=0-3` of array.sh: each array
task renders the recordings whose listed path hashes to its index (FNV-1a 64 modulo 4, computed here
independently), every recording exactly once, each task's report present. The task holding the long
recording is cancelled (`scancel JOB_INDEX`) while it renders: no output under its final name; the
array submitted again renders only that recording and skips the others, whose files stay untouched.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import ffprobe_frame_times, finish, result, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = 4
# (name, seconds, seed, size): call4 is long and large enough to be cancelled while it renders: at
# x264 veryslow on one CPU about 10 s (at 160x90 and ultrafast it took under a second once the
# annotation rasterizer got faster, and finished before scancel reached it).
RECORDINGS = [("call1", 1, 1, "160x90"), ("call2", 1, 2, "160x90"), ("call3", 1.5, 3, "160x90"), ("call4", 12, 4, "640x360")]


def fnv1a64(text):
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001B3) % 2**64
    return value


def submit(work, fxreplay, wait):
    # array.sh asks for 4 CPUs and 8G per task: this node is smaller, so each task gets one CPU
    # and 2G (command-line options win over #SBATCH lines), as a user of a small node would do.
    environment = dict(os.environ, MANIFEST=os.path.join(work, "manifest.csv"), OUT=os.path.join(work, "out"),
                       JOB=os.path.join(work, "job.yaml"), FXREPLAY=fxreplay)
    arguments = ["sbatch", "--parsable", f"--array=0-{TASKS - 1}", "--cpus-per-task=1", "--mem=2G"]
    status, out, err = run(arguments + (["--wait"] if wait else []) + [os.path.join(ROOT, "deploy/slurm/array.sh")],
                           cwd=work, env=environment, timeout=900)
    if status != 0 and not out.strip():
        raise RuntimeError(f"sbatch: exit {status}: {err.strip()}")
    return out.strip().split(";")[0], status


def job_states(job):
    status, out, _ = run(["scontrol", "-o", "show", "job", job])
    states = {}
    for line in out.splitlines():
        fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
        if "ArrayTaskId" in fields:
            states[int(fields["ArrayTaskId"])] = fields["JobState"]
    return states


def wait_for(job, timeout=600):
    deadline = time.time() + timeout
    while time.time() < deadline:
        _, out, _ = run(["squeue", "-h", "-j", job, "-o", "%i"])
        if not out.strip():
            return True
        time.sleep(1)
    return False


def reports(out):
    found = {}
    for index in range(TASKS):
        path = os.path.join(out, f"batch-report-{index}-of-{TASKS}.json")
        if os.path.exists(path):
            with open(path) as file:
                found[index] = json.load(file)
    return found


def main():
    fxreplay, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "out")
    rows = ["input,output,annotations,background"]
    for name, seconds, seed, size in RECORDINGS:
        folder = os.path.join(work, "recordings", name)
        status, _, err = run([fxreplay, "sample", "-o", folder, "--seconds", str(seconds), "--size", size,
                              "--seed", str(seed), "--overwrite"])
        if status != 0:
            raise RuntimeError(f"fxreplay sample: {err.strip()}")
        # The sample's mask and poses are found next to call.mp4 by name (call.mask.mkv, call.poses.*).
        rows.append(f"recordings/{name}/call.mp4,{name}.mp4,recordings/{name}/annotations.json,"
                    f"image:recordings/{name}/background.png")
    with open(os.path.join(work, "manifest.csv"), "w") as file:
        file.write("\n".join(rows) + "\n")
    with open(os.path.join(work, "job.yaml"), "w") as file:
        file.write("poses-from-sei: true\npreset: veryslow\n")
    shard_of = {name: fnv1a64(f"recordings/{name}/call.mp4") % TASKS for name, *_ in RECORDINGS}
    victim = shard_of["call4"]
    print(f"shards (FNV-1a 64 of the manifest cell modulo {TASKS}): {shard_of}; cancelling task {victim}", flush=True)

    # First submission: cancel the long recording's task while it renders.
    job, _ = submit(work, fxreplay, wait=False)
    lock = os.path.join(out, "logs", "call4.lock")
    deadline = time.time() + 300
    while not os.path.exists(lock) and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1)
    started = os.path.exists(lock)
    run(["scancel", f"{job}_{victim}"])
    finished = wait_for(job)
    result("slurm: array job ran to its end", started and finished,
           f"call4's render started {started}, all tasks left the queue {finished}")
    states = job_states(job)
    expected_states = {index: ("CANCELLED" if index == victim else "COMPLETED") for index in range(TASKS)}
    result("slurm: the cancelled task CANCELLED, the others COMPLETED", states == expected_states, f"{states}")
    first = reports(out)
    for index in range(TASKS):
        if index == victim:
            continue
        report = first.get(index)
        mine = sorted(f"{name}.mp4" for name, shard in shard_of.items() if shard == index)
        names = sorted(os.path.basename(entry["output"]) for entry in (report or {}).get("recordings", []))
        statuses = {entry["status"] for entry in (report or {}).get("recordings", [])}
        result(f"slurm: task {index}'s report lists its share, rendered", report is not None and names == mine
               and statuses <= {"done"}, f"report {'present' if report else 'missing'}: {names}, {statuses}; expected {mine}")
    victim_output = os.path.join(out, "call4.mp4")
    leftovers = [name for name in os.listdir(out) if name.startswith(".call4.mp4.fxreplay") and name.endswith(".part")]
    result("slurm: the cancelled render left no output under its name", not os.path.exists(victim_output),
           f"call4.mp4 {'present' if os.path.exists(victim_output) else 'absent'}, temporary files left: {leftovers}")
    outputs = {name: os.stat(os.path.join(out, f"{name}.mp4")) for name, *_ in RECORDINGS
               if os.path.exists(os.path.join(out, f"{name}.mp4"))}
    result("slurm: the other recordings rendered once each", sorted(outputs) == ["call1", "call2", "call3"],
           f"outputs {sorted(outputs)}")

    # Second submission: only the missing recording is rendered.
    job, status = submit(work, fxreplay, wait=True)
    states = job_states(job)
    result("slurm: resubmitted array COMPLETED", status == 0 and set(states.values()) == {"COMPLETED"},
           f"sbatch --wait exit {status}, states {states}")
    second = reports(out)
    statuses = {os.path.basename(entry["output"]): entry["status"]
                for report in second.values() for entry in report.get("recordings", [])}
    expected = {"call1.mp4": "skipped", "call2.mp4": "skipped", "call3.mp4": "skipped", "call4.mp4": "done"}
    result("slurm: the resubmitted array rendered only what was missing", statuses == expected
           and len(second) == TASKS, f"{statuses}, {len(second)} reports")
    untouched = all((os.stat(os.path.join(out, f"{name}.mp4")).st_ino, os.stat(os.path.join(out, f"{name}.mp4")).st_mtime_ns)
                    == (stat.st_ino, stat.st_mtime_ns) for name, stat in outputs.items())
    result("slurm: finished outputs untouched by the second run", untouched)
    frames_ok = []
    for name, *_ in RECORDINGS:
        source = ffprobe_frame_times(os.path.join(work, "recordings", name, "call.mp4"))
        rendered = ffprobe_frame_times(os.path.join(out, f"{name}.mp4")) if os.path.exists(os.path.join(out, f"{name}.mp4")) else []
        frames_ok.append(len(source) == len(rendered) and max((abs(a - b) for a, b in zip(source, rendered)), default=0) < 1e-6)
    result("slurm: every output has its recording's frames at their times", all(frames_ok), f"{frames_ok}")
    finish()


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        result("slurm: array run", False, str(error))
        finish()

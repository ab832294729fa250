"""deploy/kubernetes/indexed-job.yaml checked as Kubernetes would take it (scripts/interop.sh).

    kubernetes_job.py FXREPLAY WORKDIR     # run with the virtual environment's python (kubernetes.sh)

1. The manifest validated, strictly (no unknown fields), against the Kubernetes API schemas that
   kubernetes-validate ships, for every version docs/cluster.md names (1.29 and later); 1.28's schema
   must reject it (podFailurePolicy rules needed onPodConditions before 1.29), and so must a copy
   with a misspelt field: the validator can fail.
2. The container's command, exactly as the manifest gives it, run once per completion index as an
   Indexed Job's pod runs it: in its own mount namespace with a volume at the manifest's mountPath
   (/data), as the pod's user (runAsUser) with the fsGroup as a supplementary group owning the volume,
   with only the environment a pod gets (JOB_COMPLETION_INDEX, HOSTNAME, KUBERNETES_SERVICE_*,
   PATH with fxreplay as the image installs it). Every recording rendered once across the indexes,
   each index's report present; a retried index (backoffLimitPerIndex) skips what is done; the exit
   codes the podFailurePolicy treats as final (FailIndex) are the ones fxreplay gives for bad usage
   and bad input, and a failed recording (exit 1) is not among them, so it is retried.
"""
import copy
import json
import os
import shutil
import tempfile
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import finish, result, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST = os.path.join(ROOT, "deploy/kubernetes/indexed-job.yaml")
VERSIONS = [f"1.{minor}" for minor in range(29, 38)]


def validate(path, version):
    return run([os.path.join(os.path.dirname(sys.executable), "kubernetes-validate"), "--strict", "--quiet",
                "-k", version, path])


def check_schemas(work):
    for version in VERSIONS:
        status, out, err = validate(MANIFEST, version)
        result(f"kubernetes {version}: the manifest validates strictly against the API schema", status == 0,
               (out + err).strip()[-300:])
    status, out, err = validate(MANIFEST, "1.28")
    result("kubernetes 1.28: the schema rejects the manifest (needs 1.29)", status != 0 and "onPodConditions" in out + err,
           (out + err).strip()[-300:])
    with open(MANIFEST) as file:
        documents = list(yaml.safe_load_all(file))
    broken = copy.deepcopy(documents)
    job = next(document for document in broken if document["kind"] == "Job")
    job["spec"]["completionsMode"] = job["spec"].pop("completionMode")
    path = os.path.join(work, "misspelt.yaml")
    with open(path, "w") as file:
        yaml.safe_dump_all(broken, file)
    status, out, err = validate(path, VERSIONS[-1])
    result("kubernetes: a misspelt field fails the strict validation", status != 0, (out + err).strip()[-200:])
    return documents


def pod_run(bin_dir, data, mount, command, index, user, group, completions):
    """The container's command as the pod of completion `index` runs it (`bin_dir` holding the image's
    fxreplay), returning its exit status."""
    environment = ["PATH=" + bin_dir + ":/usr/bin:/bin", f"HOME=/tmp", f"JOB_COMPLETION_INDEX={index}",
                   f"HOSTNAME=fxreplay-batch-{index}-x7k2q", "KUBERNETES_SERVICE_HOST=10.96.0.1",
                   "KUBERNETES_SERVICE_PORT=443"]
    script = ('mount --bind "$1" "$2" && shift 2 && exec setpriv --reuid="$UID_" --regid="$GID_" --groups="$GID_" '
              'env -i "$@"')
    arguments = ["unshare", "--mount", "--propagation", "private", "bash", "-c", script, "pod", data, mount,
                 *environment, *command]
    process = subprocess.run(arguments, capture_output=True, text=True, timeout=600,
                             env=dict(os.environ, UID_=str(user), GID_=str(group)))
    return process.returncode, process.stderr


def check_pods(fxreplay, work, documents):
    job = next(document for document in documents if document["kind"] == "Job")
    pod = job["spec"]["template"]["spec"]
    container = pod["containers"][0]
    command = container["command"]
    mount = next(m["mountPath"] for m in container["volumeMounts"])
    completions = job["spec"]["completions"]
    user, group = pod["securityContext"]["runAsUser"], pod["securityContext"]["fsGroup"]
    final_codes = set(job["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"])

    # The image: fxreplay on PATH (the Dockerfile installs the .deb: /usr/bin/fxreplay); the volume: recordings, manifest.
    # In a folder of its own under /tmp: the pod's user must reach it, and `work` may be inside a
    # private (0700) temporary folder.
    bin_dir = tempfile.mkdtemp(prefix="fxreplay-image-bin.")
    os.chmod(bin_dir, 0o755)
    shutil.copy(fxreplay, os.path.join(bin_dir, "fxreplay"))
    data = os.path.join(work, "volume")
    sample = os.path.join(work, "sample")
    status, _, err = run([fxreplay, "sample", "-o", sample, "--seconds", "1", "--size", "160x90", "--overwrite"])
    if status != 0:
        raise RuntimeError(f"fxreplay sample: {err.strip()}")
    os.makedirs(os.path.join(data, "in"), exist_ok=True)
    names = [f"call{i}" for i in range(1, 7)]
    for name in names:
        for suffix in ("mp4", "mask.mkv", "poses.jsonl"):
            shutil.copy(os.path.join(sample, f"call.{suffix}"), os.path.join(data, "in", f"{name}.{suffix}"))
    shutil.copy(os.path.join(sample, "annotations.json"), os.path.join(data, "in", "annotations.json"))
    manifest_path = command[command.index("--manifest") + 1]
    out_path = command[command.index("--out") + 1]
    relative = os.path.relpath(manifest_path, mount)
    with open(os.path.join(data, relative), "w") as file:
        file.write("input,annotations\n" + "".join(f"in/{name}.mp4,in/annotations.json\n" for name in names))
    # fsGroup: the volume belongs to the group, which may write it.
    for folder, subfolders, files in os.walk(data):
        for entry in [folder] + [os.path.join(folder, f) for f in files]:
            os.chown(entry, 0, group)
            os.chmod(entry, 0o2775 if os.path.isdir(entry) else 0o664)
    created_mount = not os.path.exists(mount)
    if created_mount:
        os.makedirs(mount)
    try:
        statuses = {}
        for index in range(completions):
            statuses[index], stderr = pod_run(bin_dir, data, mount, command, index, user, group, completions)
        result(f"kubernetes: {completions} pods ran the manifest's command, JOB_COMPLETION_INDEX 0..{completions - 1}",
               set(statuses.values()) == {0},
               f"exit statuses {statuses}" + ("" if set(statuses.values()) == {0} else f"; last stderr {stderr.strip()[-300:]}"))
        out = os.path.join(data, os.path.relpath(out_path, mount))
        seen = []
        reports = 0
        for index in range(completions):
            path = os.path.join(out, f"batch-report-{index}-of-{completions}.json")
            if os.path.exists(path):
                reports += 1
                with open(path) as file:
                    seen += [(os.path.basename(e["output"]), e["status"]) for e in json.load(file)["recordings"]]
        expected = sorted((f"{name}.mp4", "done") for name in names)
        result("kubernetes: each index's report present, every recording rendered by exactly one",
               reports == completions and sorted(seen) == expected, f"{reports} reports, {sorted(seen)}")
        owners = {os.stat(os.path.join(out, f"{name}.mp4")).st_uid for name in names if os.path.exists(os.path.join(out, f"{name}.mp4"))}
        result("kubernetes: outputs written by the pod's user", owners == {user}, f"owners {owners}")
        result("kubernetes: per-recording logs on the volume", all(os.path.exists(os.path.join(out, "logs", f"{name}.log")) for name in names))

        # backoffLimitPerIndex: a retried index skips what is done.
        status, stderr = pod_run(bin_dir, data, mount, command, 0, user, group, completions)
        with open(os.path.join(out, f"batch-report-0-of-{completions}.json")) as file:
            again = {e["status"] for e in json.load(file)["recordings"]}
        result("kubernetes: a retried index skips finished recordings", status == 0 and again <= {"skipped"},
               f"exit {status}, statuses {again}")

        # The podFailurePolicy's final exit codes: bad input is final, a failed recording is retried.
        with open(os.path.join(data, relative), "w") as file:
            file.write("input,crf\nin/call1.mp4,not-a-number\n")
        status, stderr = pod_run(bin_dir, data, mount, command, 0, user, group, completions)
        result("kubernetes: a bad manifest exits with a code the policy fails the index for", status in final_codes,
               f"exit {status} (FailIndex on {sorted(final_codes)}): {stderr.strip()[-200:]}")
        # Enough damaged recordings that index 0 gets some (the share is a hash of the path).
        damaged = [f"in/damaged{i}.mp4" for i in range(completions * 4)]
        for name in damaged:
            with open(os.path.join(data, name), "wb") as file:
                file.write(b"\0" * 4096)
            os.chown(os.path.join(data, name), 0, group)
        with open(os.path.join(data, relative), "w") as file:
            file.write("input\n" + "".join(f"{name}\n" for name in damaged))
        status, stderr = pod_run(bin_dir, data, mount, command, 0, user, group, completions)
        result("kubernetes: a failed recording exits 1, which the policy retries", status == 1 and 1 not in final_codes,
               f"exit {status}" + ("" if status == 1 else f": {stderr.strip()[-200:]}"))
    finally:
        if created_mount:
            os.rmdir(mount)
        shutil.rmtree(bin_dir, ignore_errors=True)


def main():
    fxreplay, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    documents = check_schemas(work)
    try:
        check_pods(fxreplay, work, documents)
    except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as error:
        result("kubernetes: pods", False, str(error))
    finish()


if __name__ == "__main__":
    main()

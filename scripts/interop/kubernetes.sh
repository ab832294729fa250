#!/usr/bin/env bash
# deploy/kubernetes/indexed-job.yaml: schema validation and its command run as its pods would run it
# (see kubernetes_job.py). The validator, kubernetes-validate (it ships the Kubernetes OpenAPI
# schemas of every version it knows), comes from PyPI into a virtual environment under .build.
#
#   scripts/interop/kubernetes.sh FXREPLAY WORKDIR      # as root: it mounts the volume in its own namespace
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${INTEROP_VENV:-.build/interop-venv}
validator_version=1.37.0
if ! "$venv/bin/python" -c "import kubernetes_validate, yaml" 2>/dev/null \
   || [ "$("$venv/bin/pip" show kubernetes-validate 2>/dev/null | sed -n 's/^Version: //p')" != "$validator_version" ]; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==$validator_version" >&2
fi
exec "$venv/bin/python" scripts/interop/kubernetes_job.py "$@"

# On the host, after mesh.sh in every VM: `preflight fleet` over each
# case's directory names what the case injected (mesh_check.py).
python3 "$PF_SRC/tests/vm/mesh_check.py" "$1/share" "$PF_BUILD/preflight"

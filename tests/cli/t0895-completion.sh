#!/bin/sh
# SPDX-License-Identifier: MIT
# t0895-completion.sh - contrib/bash-completion/preflight completes every
# option of --help (main and each subcommand), the subcommands, check names
# and tags for --only/--skip, --set CHECK. then CHECK.KEY= from --describe,
# formats per subcommand, shipped profiles by name.  All of it comes from the
# binary: an option, check, setting or subcommand (a row of main.c's command
# table, `preflight --list-commands`) added later completes without an edit.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"
command -v bash >/dev/null || skip_all "no bash"

# compw BINARY WORD...: the completions of the last word (the cursor at its end)
compw() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_preflight; printf "%s\n" "${COMPREPLY[@]}"' sh \
		"$PF_SOURCE_DIR/contrib/bash-completion/preflight" "$@" | sort
}
comp() { compw "$PREFLIGHT" "$@"; }
has() { printf '%s\n' "$1" | grep -qxF -- "$2"; }

# every option of `preflight --help` (less its usage lines naming subcommands),
# and of each subcommand's --help, its own usage line included
for sub in "" fleet diff snapshot mesh "profile capture"; do
	# shellcheck disable=SC2086
	opts=$("$PREFLIGHT" $sub --help | { [ -n "$sub" ] && cat || grep -v -E '^(usage:)? *preflight [a-z]'; } |
		grep -o -- '--[a-z][a-z-]*' | sort -u)
	# shellcheck disable=SC2086
	got=$(comp $sub --)
	missing=$(printf '%s\n' "$opts" | while read -r o; do has "$got" "$o" || echo "$o"; done)
	[ -z "$missing" ] && ok "'preflight $sub --' completes all $(echo "$opts" | wc -l) options" ||
		not_ok "'preflight $sub --' misses: $missing"
done
has "$(comp --)" --all && has "$(comp --)" --check-config && has "$(comp fleet --)" --recursive &&
	ok "new options are among them" || not_ok "--all, --check-config or fleet --recursive missing"

# subcommands: exactly the rows of main.c's command table, through --list-commands
table=$(sed -n '/^static const struct pf_command commands/,/^};/ s/^	{ "\([a-z]*\)", .*/\1/p' "$PF_SOURCE_DIR/src/cmd/main.c" | sort)
[ -n "$table" ] && has "$table" mesh || not_ok "main.c's command table not read: '$table'"
[ "$("$PREFLIGHT" --list-commands | sort)" = "$table" ] && ok "--list-commands prints the table" ||
	not_ok "--list-commands: $("$PREFLIGHT" --list-commands | tr '\n' ' ')"
"$PREFLIGHT" --help | grep -q -- --list-commands && not_ok "--list-commands is in --help (it is for scripts)"
[ "$(comp "")" = "$table" ] && ok "<TAB>: the subcommands, mesh among them" ||
	not_ok "subcommands: $(comp "" | tr '\n' ' ')"
[ "$(comp profile "")" = capture ] || not_ok "profile <TAB>: $(comp profile "")"
# mesh: its options, and no words offered for a value (--rank N)
has "$(comp mesh --ra)" --rank && has "$(comp mesh --)" --data-port && ok "mesh --: its options" ||
	not_ok "mesh --ra: $(comp mesh --ra)"
[ -z "$(comp mesh --rank "")" ] || not_ok "mesh --rank <TAB>: $(comp mesh --rank "")"
# a row added to the table completes with no edit of the script: a binary whose
# table has one more command, "frob", with an option that takes a value
cat > "$T/pf-more" <<EOF
#!/bin/sh
case "\$*" in
"--list-commands") "$PREFLIGHT" --list-commands; echo frob ;;
"frob --help") echo "usage: preflight frob [--widget W] [--quiet] FILE" ;;
*) exec "$PREFLIGHT" "\$@" ;;
esac
EOF
chmod +x "$T/pf-more"
has "$(compw "$T/pf-more" fr)" frob && [ "$(compw "$T/pf-more" frob --)" = "$(printf -- '--quiet\n--widget')" ] &&
	[ -z "$(compw "$T/pf-more" frob --widget "")" ] && ok "a new table row completes, its options too" ||
	not_ok "new row: '$(compw "$T/pf-more" fr)' '$(compw "$T/pf-more" frob --)'"

# --only/--skip: every check and every tag, after a comma too
got=$(comp --only "")
for c in $("$PREFLIGHT" --list | awk '{print $1}'); do has "$got" "$c" || not_ok "--only: check $c missing"; done
for t in static traffic rdma gpu; do has "$got" "$t" || not_ok "--only: tag $t missing"; done
[ "$(comp --skip sysctl,traf)" = "sysctl,traffic" ] && ok "--skip sysctl,traf -> sysctl,traffic" ||
	not_ok "--skip sysctl,traf: $(comp --skip sysctl,traf)"

# --set: CHECK. then the check's keys from --describe
has "$(comp --set nic_l)" "nic_link_speed." && ok "--set nic_l -> nic_link_speed." ||
	not_ok "--set nic_l: $(comp --set nic_l)"
got=$(comp --set nic_link_speed.)
keys=$("$PREFLIGHT" --describe nic_link_speed | sed -n '/^parameters/,$ s/^  \([a-z0-9_]*\)  .*/\1/p')
[ -n "$keys" ] || not_ok "no keys in --describe nic_link_speed"
for k in $keys; do has "$got" "nic_link_speed.$k=" || not_ok "--set: nic_link_speed.$k= missing"; done
[ "$(comp --set nic_link_speed.min_r)" = "nic_link_speed.min_rate_gbps=" ] &&
	ok "--set nic_link_speed.min_r -> min_rate_gbps=" || not_ok "--set key: $(comp --set nic_link_speed.min_r)"

# formats per command, --drain-on, profiles by name
[ "$(comp fleet --format c)" = csv ] || not_ok "fleet --format c: $(comp fleet --format c)"
[ "$(comp diff --format "" | tr '\n' ' ')" = "json text " ] || not_ok "diff --format: $(comp diff --format "")"
[ "$(comp --format ju)" = junit ] || not_ok "--format ju"
[ "$(comp --drain-on e)" = error ] || not_ok "--drain-on e"
has "$(comp --profile dgx-h)" dgx-h100 && ok "--profile dgx-h -> dgx-h100 (PREFLIGHT_PROFILE_PATH)" ||
	not_ok "--profile dgx-h: $(comp --profile dgx-h)"
# issue 20 item 5: an option of another subcommand is not offered at the top level
[ -z "$(comp --wi)" ] && ok "--wi: --window (snapshot's) not offered at the top level" ||
	not_ok "--wi offers $(comp --wi)"
[ "$(comp snapshot --wi)" = --window ] || not_ok "snapshot --wi: $(comp snapshot --wi)"
# every top-level option offered is one the binary accepts
for o in $(comp --); do
	"$PREFLIGHT" --no-config "$o" --check-config --help 2>&1 >/dev/null | grep -q "unknown option" &&
		not_ok "offered $o, which the binary rejects"
done
# profile names: exactly what --list-profiles prints (the names --profile accepts)
[ "$(comp --profile "" | grep -v / | tr '\n' ' ')" = "$("$PREFLIGHT" --list-profiles | sort | tr '\n' ' ')" ] &&
	ok "--profile <TAB>: the names the binary accepts" || not_ok "--profile names: $(comp --profile "")"
has "$(comp --describe gpu_)" gpu_inventory || not_ok "--describe gpu_"

done_testing

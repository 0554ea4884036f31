# Four rails on a Linux bridge (the switch), healthy (both traffic checks
# pass with figures), then one rail's
# sending side shaped to 2 Mbit/s (rig_rate: its data, not its ACKs):
# fabric_loopback names that rail and the direction (send: its
# sends are the slow flows),
# and the pairs without it still pass.
. "$PF_SRC/tests/vm/guest-net.sh"
rig_four_rails || exit 1
rig_tune

rig_preflight /vmwork/healthy.json --profile "$PROFILE" --only fabric_loopback,gdr_loopback
expect check /vmwork/healthy.json fabric_loopback pass
expect figures /vmwork/healthy.json fabric_loopback
expect check /vmwork/healthy.json gdr_loopback pass
expect figures /vmwork/healthy.json gdr_loopback
for d in 0 1 2 3; do expect finding /vmwork/healthy.json gdr_loopback "^rxe$d/1" pass; done
expect contains /vmwork/healthy.json fabric_loopback 'RoCE'
$T python3 "$PF_SRC/tests/vm/report.py" gbps /vmwork/healthy.json fabric_loopback

rig_rate rail2 2mbit
rig_preflight /vmwork/slow.json --profile "$PROFILE" --only fabric_loopback
expect check /vmwork/slow.json fabric_loopback fail
expect finding /vmwork/slow.json fabric_loopback '^rxe1/1 -> ' fail
expect finding /vmwork/slow.json fabric_loopback '^rxe1/1$' fail 'transmit'
expect obs /vmwork/slow.json fabric_loopback '^rxe1/1$' direction '^send$'
expect slower /vmwork/slow.json fabric_loopback '^rxe1/1 -> ' ' -> rxe1/1$'
expect finding /vmwork/slow.json fabric_loopback '^rxe(0/1 -> rxe2|2/1 -> rxe0)/1$' pass
expect no-finding /vmwork/slow.json fabric_loopback '^rxe(0/1 -> rxe2|2/1 -> rxe0)/1$' fail
$T python3 "$PF_SRC/tests/vm/report.py" gbps /vmwork/slow.json fabric_loopback
rig_clear rail2
finish

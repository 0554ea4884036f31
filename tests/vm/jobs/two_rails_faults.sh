# Two rails, one fault at a time, each undone before the next: ARP/rp_filter
# settings that break multi-rail, a DOWN rail, 100% loss on the cable.
. "$PF_SRC/tests/vm/guest-net.sh"
rig_two_rails || exit 1
rig_tune

# arp_ignore=0 and rp_filter=1 on two rails in one subnet
rig_arp_break veth0 veth1
rig_preflight /vmwork/arp.json --profile "$PROFILE" --only sysctl
expect check /vmwork/arp.json sysctl fail
expect finding /vmwork/arp.json sysctl 'veth0.*arp_ignore|arp_ignore.*veth0' fail
rig_rail_sysctls veth0 veth1

# a DOWN rail: veth1 down takes rxe1's port down
rig_down veth1
sleep 1
rig_preflight /vmwork/down.json --profile "$PROFILE" --only nic_link_speed
expect check /vmwork/down.json nic_link_speed fail
expect finding /vmwork/down.json nic_link_speed '^rxe1' fail
$T ip link set veth1 up
rig_wait_active rxe0 rxe1

# 100% loss on rxe0's cable: nothing connects
rig_loss veth0 100%
rig_preflight /vmwork/loss.json --profile "$PROFILE" --only fabric_loopback \
	--set fabric_loopback.resolve_timeout_ms=1000
expect check /vmwork/loss.json fabric_loopback fail
expect contains /vmwork/loss.json fabric_loopback '"stage": "(resolve_addr|resolve_route|connect)"'
expect no-finding /vmwork/loss.json fabric_loopback ' -> ' pass
rig_clear veth0
finish

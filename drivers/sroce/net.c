// SPDX-License-Identifier: GPL-2.0
/*
 * Receive hooks.  RoCEv2 arrives on UDP port 4791 through a tunnel socket
 * pair (IPv4, IPv6) that lives in the network namespace of the links using
 * it: opened by the first link of a namespace, closed by its last, so that
 * links in different namespaces, or rdma_rxe in another namespace, do not
 * collide.  RoCEv1 arrives through a packet_type bound to the link's netdev.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include <sroce/compat.h>
#include <sroce/device.h>
#include <sroce/pfc.h>
#include <sroce/rx.h>
#include <sroce/stats.h>
#include <sroce/tx.h>
#include <sroce/wire.h>

#define SROCE_UDP_PORT	4791

/**
 * struct sroce_net - per network namespace receive state
 * @lock: serialises opening and closing the sockets
 * @users: links in this namespace
 * @sock4: IPv4 UDP tunnel socket on port 4791
 * @sock6: IPv6-only UDP tunnel socket on port 4791
 */
struct sroce_net {
	struct mutex lock;	/* protects the fields below */
	unsigned int users;
	struct socket *sock4;
	struct socket *sock6;
};

static unsigned int sroce_net_id __read_mostly;

/* The device a packet belongs to: that of its netdev or of a VLAN's lower. */
static struct sroce_dev *sroce_rx_dev_rcu(struct net_device *ndev)
{
	struct sroce_dev *sdev = sroce_dev_from_ndev_rcu(ndev);

	if (!sdev && is_vlan_dev(ndev))
		sdev = sroce_dev_from_ndev_rcu(vlan_dev_real_dev(ndev));
	return sdev;
}

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev;

	rcu_read_lock();
	sdev = sroce_rx_dev_rcu(skb->dev);
	if (sdev)
		sroce_rx(sdev, skb, skb->protocol == htons(ETH_P_IP) ?
				    SROCE_NET_ROCE_V2_IPV4 :
				    SROCE_NET_ROCE_V2_IPV6);
	else
		kfree_skb(skb);
	rcu_read_unlock();
	/* 0: the skb is ours, UDP must not deliver it to the socket */
	return 0;
}

static int sroce_v1_recv(struct sk_buff *skb, struct net_device *ndev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	struct sroce_dev *sdev = container_of(pt, struct sroce_dev, v1_pt);

	if (skb->pkt_type == PACKET_OTHERHOST) {
		kfree_skb(skb);
		return NET_RX_DROP;
	}
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb) {
		sroce_stats_inc(sdev, SROCE_CNT_RX_NOMEM);
		return NET_RX_DROP;
	}
	/*
	 * A packet a sender of this host handed to a veth still counts as
	 * below that sender (tx.c) until orphaned, as IP's receive does
	 * for RoCEv2: a receiver that holds it must not hold the sender.
	 */
	skb_orphan(skb);
	sroce_rx(sdev, skb, SROCE_NET_ROCE_V1);
	return NET_RX_SUCCESS;
}

/* The PFC frame's destination, IEEE 802.1Q table 8-1; or the port's own */
static bool sroce_pfc_for_us(const u8 *da, const struct net_device *ndev)
{
	static const u8 pfc_da[ETH_ALEN] __aligned(2) = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
	};

	return ether_addr_equal(da, pfc_da) ||
	       ether_addr_equal(da, ndev->dev_addr);
}

/*
 * MAC Control frames.  Other taps may hold the same skb: only read it.  An
 * 802.3x PAUSE is not ours to act on; anything else short or unknown is
 * counted.
 */
static int sroce_pfc_recv(struct sk_buff *skb, struct net_device *ndev,
			  struct packet_type *pt, struct net_device *orig_dev)
{
	struct sroce_dev *sdev = container_of(pt, struct sroce_dev, pfc_pt);
	u8 buf[SROCE_PFC_LEN];
	struct sroce_pfc_frame f;
	const u8 *d;
	int ret;

	if (!skb_mac_header_was_set(skb) ||
	    !sroce_pfc_for_us(eth_hdr(skb)->h_dest, ndev))
		goto out;
	d = skb_header_pointer(skb, 0, sizeof(buf), buf);
	ret = d ? sroce_pfc_parse(d, sizeof(buf), &f) : -EINVAL;
	if (!ret) {
		sroce_tx_pfc_rx(sdev, &f);
		consume_skb(skb);
		return NET_RX_SUCCESS;
	}
	if (ret == -EINVAL || get_unaligned_be16(d) != SROCE_PAUSE_OPCODE)
		sroce_stats_inc(sdev, SROCE_CNT_RX_PFC_MALFORMED);
out:
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

/*
 * The RoCEv1 receive hook, and the PFC one: on the link's netdev, or for
 * a VLAN device on the device below, where the untagged MAC Control
 * frames arrive.
 */
void sroce_l2_hooks_add(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;

	sdev->v1_pt.type = htons(ETH_P_IBOE);
	sdev->v1_pt.dev = ndev;
	sdev->v1_pt.func = sroce_v1_recv;
	dev_add_pack(&sdev->v1_pt);

	sdev->pfc_pt.type = htons(SROCE_ETH_P_PAUSE);
	sdev->pfc_pt.dev = is_vlan_dev(ndev) ? vlan_dev_real_dev(ndev) : ndev;
	sdev->pfc_pt.func = sroce_pfc_recv;
	dev_add_pack(&sdev->pfc_pt);
}

/* Returns after an RCU grace period: no receive path sees @sdev then. */
void sroce_l2_hooks_del(struct sroce_dev *sdev)
{
	__dev_remove_pack(&sdev->pfc_pt);
	__dev_remove_pack(&sdev->v1_pt);
	synchronize_net();
}

static struct socket *sroce_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(SROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.local_ip6 = in6addr_any;
		cfg.ipv6_v6only = 1;
		/* RoCEv2 senders leave the UDP checksum zero; the ICRC covers it */
		cfg.use_udp6_rx_checksums = 0;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

static void sroce_udp_close(struct sroce_net *sn)
{
	if (sn->sock6)
		udp_tunnel_sock_release(sn->sock6);
	if (sn->sock4)
		udp_tunnel_sock_release(sn->sock4);
	sn->sock4 = NULL;
	sn->sock6 = NULL;
}

/* Take a reference on the receive sockets of @net, opening them if needed. */
int sroce_net_get(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);
	struct socket *sock;
	int err = 0;

	mutex_lock(&sn->lock);
	WRITE_ONCE(sn->users, sn->users + 1);
	if (sn->users > 1)
		goto out;

	sock = sroce_udp_open(net, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto fail;
	}
	sn->sock4 = sock;
	sock = sroce_udp_open(net, true);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto fail;
	}
	sn->sock6 = sock;
	goto out;
fail:
	sroce_udp_close(sn);
	WRITE_ONCE(sn->users, sn->users - 1);
out:
	mutex_unlock(&sn->lock);
	return err;
}

void sroce_net_put(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	mutex_lock(&sn->lock);
	if (!WARN_ON_ONCE(!sn->users)) {
		WRITE_ONCE(sn->users, sn->users - 1);
		if (!sn->users)
			sroce_udp_close(sn);
	}
	mutex_unlock(&sn->lock);
}

static int __net_init sroce_pernet_init(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	mutex_init(&sn->lock);
	return 0;
}

/* The link layer's exit (link.c) has taken this namespace's links down. */
static void __net_exit sroce_pernet_exit(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	WARN_ON_ONCE(sn->users);
	mutex_destroy(&sn->lock);
}

static struct pernet_operations sroce_pernet_ops = {
	.init = sroce_pernet_init,
	.exit = sroce_pernet_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_pernet_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_pernet_ops);
}

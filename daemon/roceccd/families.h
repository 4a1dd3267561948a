/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roceccd: every metric family /metrics can export, in one table (name,
 * type, help). The emitters (prom.c, module.c, bpfdp.c, dcb.c, pfcwd.c, hw.c) write a family's HELP and TYPE lines and name its series
 * from here, and `roceccd --list-metrics` prints the table, so that
 * dashboards and alerting rules can be checked against what the daemon
 * exports without running it. A family that is not in this table cannot
 * be written.
 */
#ifndef _ROCECC_ROCECCD_FAMILIES_H
#define _ROCECC_ROCECCD_FAMILIES_H

#include <stdio.h>

/* F(ID, name, type, help) for each family, in /metrics order. */
#define RD_FAMILIES(F)							\
	/* per flow: rd_counters[] (prom.c) */			\
	F(FLOW_TX_PACKETS, "rocecc_flow_tx_packets_total", COUNTER,	\
	  "RoCE packets sent.")						\
	F(FLOW_TX_BYTES, "rocecc_flow_tx_bytes_total", COUNTER,		\
	  "RoCE bytes sent, IP header to ICRC.")			\
	F(FLOW_RX_PACKETS, "rocecc_flow_rx_packets_total", COUNTER,	\
	  "RoCE packets received.")					\
	F(FLOW_RX_BYTES, "rocecc_flow_rx_bytes_total", COUNTER,		\
	  "RoCE bytes received, IP header to ICRC.")			\
	F(FLOW_RX_CE, "rocecc_flow_rx_ce_marked_packets_total", COUNTER, \
	  "RoCE packets received with ECN CE.")				\
	F(FLOW_TX_CNP, "rocecc_flow_tx_cnp_total", COUNTER,		\
	  "CNPs sent.")							\
	F(FLOW_RX_CNP, "rocecc_flow_rx_cnp_total", COUNTER,		\
	  "CNPs received.")						\
	F(FLOW_TX_ACKREQ, "rocecc_flow_tx_ackreq_requests_total", COUNTER, \
	  "new requests sent with AckReq (RTT probes).")		\
	F(FLOW_TX_MSGS, "rocecc_flow_tx_messages_total", COUNTER,	\
	  "messages whose last packet was sent.")			\
	F(FLOW_TX_RETRANS, "rocecc_flow_tx_retransmitted_packets_total", \
	  COUNTER, "retransmitted request packets.")			\
	F(FLOW_RX_ACKS, "rocecc_flow_rx_acks_total", COUNTER,		\
	  "positive ACKs received.")					\
	F(FLOW_RX_NAK_SEQ, "rocecc_flow_rx_nak_sequence_errors_total",	\
	  COUNTER, "NAKs received: PSN sequence error.")		\
	F(FLOW_RX_NAK_OTHER, "rocecc_flow_rx_nak_other_total", COUNTER,	\
	  "NAKs received: invalid request, access, other.")		\
	F(FLOW_RX_RNR_NAK, "rocecc_flow_rx_rnr_naks_total", COUNTER,	\
	  "RNR NAKs received.")						\
	F(FLOW_RTT_KARN, "rocecc_flow_rtt_probes_retransmitted_total",	\
	  COUNTER, "RTT probes dropped: retransmitted (Karn).")		\
	F(FLOW_RTT_OVERRUN, "rocecc_flow_rtt_probes_overrun_total",	\
	  COUNTER, "RTT probes dropped: probe table wrapped.")		\
	F(FLOW_MCT_OVERRUN, "rocecc_flow_messages_untimed_total", COUNTER, \
	  "messages not timed: pending ring full.")			\
	F(FLOW_MCT, "rocecc_flow_message_completion_seconds", HISTOGRAM, \
	  "Message completion time on the wire: first packet sent to the ACK that completes the message.") \
	F(FLOW_RTT, "rocecc_flow_rtt_seconds", HISTOGRAM,		\
	  "Request with AckReq to the response carrying its PSN.")	\
	/* flowmon's own counters */					\
	F(FLOWMON_TX_UNKNOWN_PKTS, "rocecc_flowmon_tx_unknown_packets_total", \
	  COUNTER, "Egress RoCE packets counted nowhere: UD, or the flow table full.") \
	F(FLOWMON_TX_UNKNOWN_BYTES, "rocecc_flowmon_tx_unknown_bytes_total", \
	  COUNTER, "Egress RoCE bytes counted nowhere.")		\
	F(FLOWMON_RX_UNKNOWN_PKTS, "rocecc_flowmon_rx_unknown_packets_total", \
	  COUNTER, "Ingress RoCE packets counted nowhere: UD, or the pending map full.") \
	F(FLOWMON_RX_UNKNOWN_BYTES, "rocecc_flowmon_rx_unknown_bytes_total", \
	  COUNTER, "Ingress RoCE bytes counted nowhere.")		\
	F(FLOWMON_TX_MALFORMED, "rocecc_flowmon_tx_malformed_packets_total", \
	  COUNTER, "Egress packets to port 4791, truncated or malformed.") \
	F(FLOWMON_RX_MALFORMED, "rocecc_flowmon_rx_malformed_packets_total", \
	  COUNTER, "Ingress packets to port 4791, truncated or malformed.") \
	F(FLOWMON_FLOW_FULL, "rocecc_flowmon_flow_table_full_total",	\
	  COUNTER, "New flows not created: table full.")		\
	F(FLOWMON_FLOW_REPLACED, "rocecc_flowmon_flows_replaced_total",	\
	  COUNTER, "Flows restarted: their remote QP now pairs with another local QP.") \
	F(FLOWMON_PEND_FULL, "rocecc_flowmon_pending_full_total",	\
	  COUNTER, "Ingress packets of a QP not known yet that found no room in the pending map.") \
	F(FLOWMON_PEND_MERGED, "rocecc_flowmon_pending_merged_total",	\
	  COUNTER, "Pending entries (packets counted before their QP was known) folded into their flows.") \
	F(FLOWMON_PEND_RESP_LOST, "rocecc_flowmon_pending_responses_lost_total", \
	  COUNTER, "Responses of a QP not known yet that were counted but not timed (a pending entry's ring full).") \
	F(FLOWMON_EVENTS_LOST, "rocecc_flowmon_events_lost_total",	\
	  COUNTER, "New flows and pending entries the daemon was not told of (ring buffer full).") \
	F(FLOWMON_PEND_EVICTED, "rocecc_flowmon_pending_evicted_total",	\
	  COUNTER, "Pending entries of no QP of this host, deleted by the daemon.") \
	F(FLOWMON_FLOWS_EVICTED, "rocecc_flowmon_flows_evicted_total",	\
	  COUNTER, "Flows an egress packet made for no QP of this host, deleted by the daemon.") \
	F(FLOWMON_EVENT_ROUNDS, "rocecc_flowmon_event_rounds_total",	\
	  COUNTER, "Rounds of QP learning that flowmon's events caused.") \
	/* the daemon's tables */					\
	F(FLOWS, "rocecc_flows", GAUGE, "Flows in the flow table.")	\
	F(QPS, "rocecc_qps", GAUGE,					\
	  "RC/UC QPs in RTR or later on RoCE ports.")			\
	F(NETDEVS, "rocecc_netdevs", GAUGE,				\
	  "RoCE netdevs with flowmon attached.")			\
	F(NETDEV_INFO, "rocecc_netdev_info", GAUGE,			\
	  "A RoCE netdev with flowmon attached, and its RDMA device.")	\
	/* stragglers and rank-map groups, per flow */			\
	F(FLOW_STRAGGLER, "rocecc_flow_straggler", GAUGE,		\
	  "1 if the flow's message completion p99 over the window exceeds its group's median by the configured factor.") \
	F(FLOW_WINDOW_P99, "rocecc_flow_window_message_completion_p99_seconds", \
	  GAUGE, "Message completion p99 over the straggler window (absent: no message in it).") \
	F(FLOW_GROUP_INFO, "rocecc_flow_group_info", GAUGE,		\
	  "A parallel group (rank map) the flow serves.")		\
	/* aggregates: by process, peer, netdev, group (prom.c) */	\
	RD_FAMILIES_AGG(F, PROCESS, "process")				\
	RD_FAMILIES_AGG(F, PEER, "peer")				\
	RD_FAMILIES_AGG(F, NETDEV, "netdev")				\
	RD_FAMILIES_AGG(F, GROUP, "group")				\
	/* the RDMA devices' hw_counters */				\
	F(RDMA_HW_STAT, "rocecc_rdma_hw_stat_total", COUNTER,		\
	  "An RDMA device port's hw_counters entry (sysfs), by name.")	\
	/* rocecc.ko (module.c) */					\
	F(MODULE_ATTACHED, "rocecc_module_attached", GAUGE,		\
	  "1 if rocecc.ko is attached to the netdev and this daemon attached it, 2 if it found it attached (adopted), 0 if not.") \
	F(MODULE_ERRORS, "rocecc_module_errors_total", COUNTER,		\
	  "Failed requests to rocecc.ko (attach, detach, configure, read).") \
	/* the datapath engines' counters: rocecc.ko, BPF, NIC firmware */ \
	RD_FAMILY_DPSTAT(F, NP_CNP_SENT, "np_cnp_sent", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, NP_ECN_MARKED_ROCE_PACKETS,		\
			  "np_ecn_marked_roce_packets", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, RP_CNP_HANDLED, "rp_cnp_handled", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, RP_CNP_IGNORED, "rp_cnp_ignored", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, FLOWS, "flows", "", GAUGE)			\
	RD_FAMILY_DPSTAT(F, FLOW_TABLE_FULL, "flow_table_full", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, PACING_DELAYED, "pacing_delayed", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, RESOLVER_MISS, "resolver_miss", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, MALFORMED, "malformed", "_total", COUNTER)	\
	RD_FAMILY_DPSTAT(F, PACING_CAPPED, "pacing_capped", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, ECT_MARKED, "ect_marked", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, RP_CNP_SPOOFED, "rp_cnp_spoofed", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, QP_CACHE_FULL, "qp_cache_full", "_total", COUNTER) \
	RD_FAMILY_DPSTAT(F, PACING_ACKREQ, "pacing_ackreq", "_total", COUNTER) \
	RD_FAMILY_BPFSTAT(F, CE_ANSWERED, "ce_answered")		\
	RD_FAMILY_BPFSTAT(F, CE_UNANSWERED, "ce_unanswered")		\
	RD_FAMILY_BPFSTAT(F, CNP_TX_ERRORS, "cnp_tx_errors")		\
	RD_FAMILY_BPFSTAT(F, CNP_DEFERRED, "cnp_deferred")		\
	RD_FAMILY_BPFSTAT(F, RP_CONTENDED, "rp_contended")		\
	RD_FAMILY_BPFSTAT(F, TX_NOT_RXE, "tx_not_rxe")			\
	/* the BPF datapath's loader in the daemon (bpfdp.c) */		\
	F(BPF_ERRORS, "rocecc_bpf_errors_total", COUNTER,		\
	  "Failed loads, attachments, detachments and dp_qps updates of the BPF datapath.") \
	F(BPF_FLOWS_EXPIRED, "rocecc_bpf_flows_expired_total", COUNTER,	\
	  "Idle flows of the BPF datapath deleted.")			\
	/* PFC and DCB buffers (dcb.c) */				\
	F(PFC_ENABLED, "rocecc_pfc_enabled", GAUGE,			\
	  "1 if PFC is enabled on the priority (IEEE pfc_en), read over DCB netlink each poll.") \
	F(PFC_REQUESTS, "rocecc_pfc_requests_total", COUNTER,		\
	  "PFC frames the netdev sent for the priority (IEEE PFC requests).") \
	F(PFC_INDICATIONS, "rocecc_pfc_indications_total", COUNTER,	\
	  "PFC frames the netdev received for the priority (IEEE PFC indications).") \
	F(PFC_BUFFER_BYTES, "rocecc_pfc_buffer_bytes", GAUGE,		\
	  "Size of the netdev's DCB buffer (dcbnl_buffer buffer_size).") \
	F(PFC_PRIO_BUFFER, "rocecc_pfc_priority_buffer", GAUGE,		\
	  "The DCB buffer a priority is mapped to (dcbnl_buffer prio2buffer).") \
	F(PFC_CONFIG_CHANGES, "rocecc_pfc_config_changes_total", COUNTER, \
	  "PFC and buffer values roceccd changed to apply [pfc].")	\
	F(PFC_ERRORS, "rocecc_pfc_errors_total", COUNTER,		\
	  "Failed DCB netlink reads and writes, and values that did not read back as set.") \
	/* PFC storm watchdog and buffer tuner (pfcwd.c) */		\
	F(PFCWD_STATE, "rocecc_pfcwd_state", GAUGE,			\
	  "PFC watchdog state of the priority: 0 ok, 1 storm, 2 PFC off (by the operator).") \
	F(PFCWD_STORMS, "rocecc_pfcwd_storms_total", COUNTER,		\
	  "PFC storms the watchdog detected on the priority.")		\
	F(PFCWD_RESTORATIONS, "rocecc_pfcwd_restorations_total", COUNTER, \
	  "PFC storms on the priority that ended (restoration_time without PFC frames).") \
	F(PFCWD_PFC_DISABLED, "rocecc_pfcwd_pfc_disabled", GAUGE,	\
	  "1 while the watchdog holds PFC off on the priority (action = disable).") \
	/* NICs that run DCQCN in firmware: mlx5 (hw.c) */		\
	F(HW_PARAM, "rocecc_hw_param", GAUGE,				\
	  "A DCQCN parameter as the NIC firmware holds it (mlx5 cc_params), in rocecc's unit; read when the port is found and after every reload.") \
	F(HW_PARAM_WRITES, "rocecc_hw_param_writes_total", COUNTER,	\
	  "Firmware parameters written by [hw] apply.")		\
	F(HW_ERRORS, "rocecc_hw_errors_total", COUNTER,		\
	  "Failed reads or writes of NIC firmware parameters.")	\
	F(PFC_PAUSED, "rocecc_pfc_paused_seconds_total", COUNTER,	\
	  "Time the peer held the priority paused (mlx5 rx_prio<p>_pause_duration).") \
	F(PFC_PAUSING, "rocecc_pfc_pausing_seconds_total", COUNTER,	\
	  "Time the netdev held the peer paused on the priority (mlx5 tx_prio<p>_pause_duration).") \
	F(HW_PFC_STORM_EVENTS, "rocecc_hw_pfc_storm_events_total", COUNTER, \
	  "The NIC firmware's own PFC storm prevention: pausing long (warning), pausing so long it stopped sending pause frames (error).") \
	F(PFCTUNE_BUFFER_BYTES, "rocecc_pfctune_buffer_bytes", GAUGE,	\
	  "Size of a buffer the PFC buffer tuner tunes, as read this poll.") \
	F(PFCTUNE_CHANGES, "rocecc_pfctune_changes_total", COUNTER,	\
	  "Buffer size changes the tuner made, by direction.")		\
	F(PFCTUNE_PROPOSALS, "rocecc_pfctune_proposals_total", COUNTER,	\
	  "Buffer size changes the tuner would have made (tune = dry-run).") \
	F(PFCTUNE_PROPOSED_BYTES, "rocecc_pfctune_proposed_bytes", GAUGE, \
	  "The size the tuner last proposed for the buffer (tune = dry-run).") \
	F(PFCTUNE_TAIL, "rocecc_pfctune_tail_seconds", GAUGE,		\
	  "p99.9 message completion of the netdev's flows over the straggler window, the tuner's latency input (absent: no sample).") \
	/* the daemon */						\
	F(STRAGGLERS, "rocecc_stragglers", GAUGE,			\
	  "Flows flagged as stragglers now.")				\
	F(STRAGGLERS_FLAGGED, "rocecc_stragglers_flagged_total", COUNTER, \
	  "Times a flow was flagged as a straggler.")			\
	F(CONFIG_RELOADS, "rocecc_config_reloads_total", COUNTER,	\
	  "Configuration reloads (SIGHUP) applied.")			\
	F(CONFIG_RELOAD_ERRORS, "rocecc_config_reload_errors_total", COUNTER, \
	  "Configuration reloads refused (bad file); the previous configuration stays.") \
	F(DISCOVERY_POLLS, "rocecc_discovery_polls_total", COUNTER,	\
	  "RDMA netlink discovery rounds.")				\
	F(DISCOVERY_ERRORS, "rocecc_discovery_errors_total", COUNTER,	\
	  "Failed RDMA netlink requests or attachments.")

/* The four families of one aggregate (flows that share a @what). */
#define RD_FAMILIES_AGG(F, ID, what)					\
	F(ID##_FLOWS, "rocecc_" what "_flows", GAUGE,			\
	  "Flows in the table, by " what ".")				\
	F(ID##_TX_BYTES, "rocecc_" what "_tx_bytes_total", COUNTER,	\
	  "RoCE bytes sent by the flows in the table, by " what ".")	\
	F(ID##_RX_BYTES, "rocecc_" what "_rx_bytes_total", COUNTER,	\
	  "RoCE bytes received by the flows in the table, by " what ".") \
	F(ID##_MCT, "rocecc_" what "_message_completion_seconds", HISTOGRAM, \
	  "Message completion time of the flows in the table, by " what ".")

/*
 * A datapath counter (ROCECC_STAT_@ID, rocecc dev show -s's @stat) of
 * whichever engine drives the netdev: rocecc.ko (engine="module"), the
 * BPF datapath (engine="bpf") or the NIC firmware (engine="hw").
 */
#define RD_FAMILY_DPSTAT(F, ID, stat, suffix, type)			\
	F(DP_##ID, "rocecc_dp_" stat suffix, type,			\
	  "The datapath's counter " stat " of the netdev (rocecc dev show -s): rocecc.ko's, the BPF datapath's or the NIC firmware's (engine label).")

/* A counter of the BPF datapath alone (DCQCN_STAT_@ID, dcqcn_stat_name()) */
#define RD_FAMILY_BPFSTAT(F, ID, stat)					\
	F(DP_##ID, "rocecc_dp_" stat "_total", COUNTER,			\
	  "The BPF datapath's counter " stat " of the netdev (rocecc dev show -s; engine=\"bpf\").")

enum rd_family {
	RDF_NONE,	/* 0: "no family" in the emitters' lookup arrays */
#define RD_FAMILY_ENUM(id, name, type, help) RDF_##id,
	RD_FAMILIES(RD_FAMILY_ENUM)
#undef RD_FAMILY_ENUM
	RDF_COUNT
};

enum rd_family_type { RDF_COUNTER, RDF_GAUGE, RDF_HISTOGRAM };

struct rd_family_desc {
	const char *name, *help;
	enum rd_family_type type;
};

extern const struct rd_family_desc rd_families[RDF_COUNT];

/* The family's name, e.g. "rocecc_flows". */
static inline const char *rd_fam(enum rd_family id)
{
	return rd_families[id].name;
}

/*
 * The family of datapath counter @stat (ROCECC_STAT_*, or the BPF
 * engine's DCQCN_STAT_*), or RDF_NONE.
 */
enum rd_family rd_family_of_stat(unsigned int stat);

/* The family's "# HELP" and "# TYPE" lines. */
void rd_prom_family(FILE *f, enum rd_family id);

/*
 * `roceccd --list-metrics`: every family's HELP and TYPE lines, and each
 * histogram family with no samples at @per_octave buckets per power of two
 * (its le bounds, zero counts), in the text format /metrics uses.
 */
void rd_family_list(FILE *f, unsigned int per_octave);

#endif /* _ROCECC_ROCECCD_FAMILIES_H */

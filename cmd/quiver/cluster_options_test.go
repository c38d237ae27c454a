package main

import (
	"strings"
	"testing"
)

// The cluster flags: a raft member's options parse into its peers, its
// raft address and the members' client addresses.
func TestParseServeCluster(t *testing.T) {
	t.Setenv(envClusterSecret, "a secret the members share")
	o, err := parseServe([]string{"--replication-mode", "raft", "--node-id", "n2",
		"--peers", "n1=127.0.0.1:7001, n2=127.0.0.1:7002,n3=127.0.0.1:7003,n4=127.0.0.1:7004/learner",
		"--peer-http", "n1=http://127.0.0.1:3141,n3=https://127.0.0.1:3143/", "--listen", "127.0.0.1:3142", "--follower-writes", "error"})
	if err != nil {
		t.Fatal(err)
	}
	c := o.cluster
	if c == nil || c.mode != modeRaft || c.nodeID != "n2" || c.raftListen != "127.0.0.1:7002" || c.followerWrites != followerError {
		t.Fatalf("cluster options = %+v", c)
	}
	if len(c.peers) != 4 || c.peers[3].ID != "n4" || c.peers[3].Address != "127.0.0.1:7004" || !c.peers[3].Learner || c.peers[1].Learner {
		t.Errorf("peers = %+v", c.peers)
	}
	addrs := c.httpAddresses(o)
	if addrs["n1"] != "http://127.0.0.1:3141" || addrs["n3"] != "https://127.0.0.1:3143" || addrs["n2"] != "http://127.0.0.1:3142" {
		t.Errorf("http addresses = %v", addrs)
	}
	// A replica is a learner in its own entry; the default answer to a
	// follower's write is a redirect.
	o, err = parseServe([]string{"--replication-mode", "replica", "--node-id", "r1", "--raft-listen", "127.0.0.1:7009"})
	if err != nil || o.cluster.mode != modeReplica || o.cluster.followerWrites != followerRedirect || len(o.cluster.peers) != 0 {
		t.Fatalf("replica: %+v, %v", o.cluster, err)
	}
	o, err = parseServe([]string{"--replication-mode", "replica", "--node-id", "n3", "--peers", "n1=127.0.0.1:7001,n3=127.0.0.1:7003"})
	if err != nil || !o.cluster.peers[1].Learner || o.cluster.peers[0].Learner {
		t.Fatalf("replica in peers: %+v, %v", o.cluster, err)
	}
	// primary stays the default, without cluster options.
	if o, err := parseServe(nil); err != nil || o.cluster != nil || o.replicationMode != modePrimary {
		t.Fatalf("default: %+v, %v", o.cluster, err)
	}
}

func TestParseServeClusterRejects(t *testing.T) {
	raft := []string{"--replication-mode", "raft"}
	cases := map[string][]string{
		"needs --node-id":                  append(raft, "--peers", "n1=127.0.0.1:7001"),
		"does not list this member":        append(raft, "--node-id", "n9", "--peers", "n1=127.0.0.1:7001"),
		"lists the member \"n1\" twice":    append(raft, "--node-id", "n1", "--peers", "n1=127.0.0.1:7001,n1=127.0.0.1:7002"),
		"is not host:port":                 append(raft, "--node-id", "n1", "--peers", "n1=localhost"),
		"has no port number":               append(raft, "--node-id", "n1", "--peers", "n1=127.0.0.1:http"),
		"is not id=address":                append(raft, "--node-id", "n1", "--peers", "n1"),
		"--raft-listen is needed":          append(raft, "--node-id", "n1"),
		"which --peers does not list":      append(raft, "--node-id", "n1", "--peers", "n1=127.0.0.1:7001", "--peer-http", "n7=http://127.0.0.1:1"),
		"not an address such as":           append(raft, "--node-id", "n1", "--peers", "n1=127.0.0.1:7001", "--peer-http", "n1=127.0.0.1:3141"),
		"--follower-writes must be":        append(raft, "--node-id", "n1", "--raft-listen", "127.0.0.1:7001", "--follower-writes", "drop"),
		"must be primary, raft or replica": {"--replication-mode", "leader"},
		"is a cluster option":              {"--node-id", "n1"},
	}
	for want, args := range cases {
		_, err := parseServe(args)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err = %v, want a message with %q", args, err, want)
		}
	}
	// Authentication works on a member: users, keys, sessions and the
	// token key are replicated records (docs/replication.md).
	secret := writeFile(t, t.TempDir(), "secret", "a secret from a file, long enough\n")
	if o, err := parseServe(append(raft, "--node-id", "n1", "--raft-listen", "127.0.0.1:7001", "--cluster-secret-file", secret, "--auth-enabled")); err != nil || !o.authEnabled {
		t.Errorf("--auth-enabled on a member: %v", err)
	}
}

/*
SPDX-License-Identifier: Apache-2.0
*/

package comm_test

import (
	"net"
	"testing"
	"time"

	"github.com/hyperledger/fabric/internal/pkg/comm"
	"golang.org/x/net/http2"
)

// advertisedMaxStreams opens a plain HTTP/2 connection to a gRPC server built
// from config and returns the SETTINGS_MAX_CONCURRENT_STREAMS it announces.
func advertisedMaxStreams(t *testing.T, config comm.ServerConfig) (uint32, bool) {
	t.Helper()
	srv, err := comm.NewGRPCServer("127.0.0.1:0", config)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	defer srv.Stop()
	conn, err := net.DialTimeout("tcp", srv.Address(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	framer := http2.NewFramer(conn, conn)
	if err := framer.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := framer.ReadFrame()
		if err != nil {
			t.Fatalf("reading the server's SETTINGS: %v", err)
		}
		if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
			return s.Value(http2.SettingMaxConcurrentStreams)
		}
	}
}

// TestFabvoteMaxConcurrentStreams: every peer and orderer gRPC server
// announces a per-connection stream limit (fabvote, patch 0016).
func TestFabvoteMaxConcurrentStreams(t *testing.T) {
	n, ok := advertisedMaxStreams(t, comm.ServerConfig{})
	if !ok || n != comm.DefaultMaxConcurrentStreams {
		t.Fatalf("default server announces %d (set %t), want %d", n, ok, comm.DefaultMaxConcurrentStreams)
	}
	n, ok = advertisedMaxStreams(t, comm.ServerConfig{MaxConcurrentStreams: 7})
	if !ok || n != 7 {
		t.Fatalf("server configured with 7 announces %d (set %t)", n, ok)
	}
}

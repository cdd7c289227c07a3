/*
SPDX-License-Identifier: Apache-2.0
*/

package util

import (
	"sync"
	"testing"
	"time"
)

// TestFabvotePubSubExpiryOfOrphanedSubscription: a subscription whose topic
// set is no longer in the map (the state the Subscribe/expiry race left
// behind in Fabric before 2.5.12) expires without a nil-pointer panic.
func TestFabvotePubSubExpiryOfOrphanedSubscription(t *testing.T) {
	ps := NewPubSub()
	sub := ps.Subscribe("topic", time.Hour).(*subscription)
	ps.Lock()
	delete(ps.subscriptions, "topic")
	ps.Unlock()
	ps.unSubscribe(sub) // panicked before the fix
	if len(ps.subscriptions) != 0 {
		t.Fatalf("subscriptions left: %v", ps.subscriptions)
	}
}

// TestFabvotePubSubSubscribeRacesExpiry: subscriptions to one topic that
// expire while others are being made; every live subscription stays in the
// map and receives what is published, and no expiry panics.
func TestFabvotePubSubSubscribeRacesExpiry(t *testing.T) {
	ps := NewPubSub()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				ps.Subscribe("topic", time.Microsecond*time.Duration(1+i%5))
			}
		}()
	}
	wg.Wait()
	live := ps.Subscribe("topic", time.Minute)
	time.Sleep(50 * time.Millisecond) // every short subscription has expired
	if err := ps.Publish("topic", "ballot"); err != nil {
		t.Fatalf("publish: %v", err)
	}
	item, err := live.Listen()
	if err != nil || item != "ballot" {
		t.Fatalf("live subscription got %v, %v", item, err)
	}
	ps.RLock()
	n := ps.subscriptions["topic"].Size()
	ps.RUnlock()
	if n != 1 {
		t.Fatalf("%d subscriptions in the topic's set, want the one live", n)
	}
}

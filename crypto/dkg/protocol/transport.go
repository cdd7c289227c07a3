package protocol

import "context"

// Message is one body as a transport delivers it. From is the sender as the
// transport authenticated it: a body never names its sender.
type Message struct {
	From int
	Body []byte
}

// Transport carries one trustee's messages. Its contract:
//
//   - Broadcast delivers body, for round r, to every trustee, the sender
//     included; Send delivers it to trustee to (1..n) only, which may be
//     the sender itself. In one round a trustee either broadcasts one body
//     or sends at most one body to each trustee, never both; a transport
//     may refuse a second body for the same round and recipient.
//   - Receive blocks until it holds, for round r, one body from each
//     trustee in from (the body broadcast, or the one sent to this
//     trustee), and returns them in the order of from, each with From set
//     to its authenticated sender. A body is delivered only to a Receive
//     of the round it was sent for.
//   - When ctx ends or the transport fails first, Receive returns the
//     messages it holds so far (in any order) and a non-nil error; the
//     caller names the missing senders.
//
// The bodies are opaque to the transport; it may sign, encrypt and relay
// them. Rounds encode canonically (Round.MarshalBinary) for binding.
type Transport interface {
	Broadcast(ctx context.Context, r Round, body []byte) error
	Send(ctx context.Context, r Round, to int, body []byte) error
	Receive(ctx context.Context, r Round, from []int) ([]Message, error)
}

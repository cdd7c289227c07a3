//go:build js && wasm

// Command wasm is the booth's WebAssembly module: the booth package's
// ballot work, exposed to JavaScript as the global object fabvoteBooth.
// Every function returns a plain object; a refusal is {error: message,
// code: the election package's code, or ""}.
//
//	tokenStyle(tokenB64)                                  → {style}
//	precompute(manifestJSON, style)                       → {handle}
//	finish(handle, voterKeyPEM, tokenB64, selectionsJSON) → {ballot, tracker, ballotHash, pseudonym, opening}
//	spoil(ballotB64, openingJSON)                         → {spoiled, tracker}
//	discard(handle)                                       → {}
//	verify(manifestJSON, ballotB64)                       → {ok: true}
//
// precompute does every exponentiation of the ballot: a page calls it in
// a Web Worker while the voter reads the ballot, and finish after the
// choice.
package main

import (
	"fmt"
	"syscall/js"

	"github.com/fabvote/fabvote/booth"
	"github.com/fabvote/fabvote/election"
)

func main() {
	bo := booth.New()
	js.Global().Set("fabvoteBooth", js.ValueOf(map[string]any{
		"tokenStyle": export("tokenStyle", []js.Type{js.TypeString}, func(a []js.Value) (any, error) {
			style, err := booth.TokenStyle(a[0].String())
			return map[string]any{"style": style}, err
		}),
		"precompute": export("precompute", []js.Type{js.TypeString, js.TypeNumber}, func(a []js.Value) (any, error) {
			h, err := bo.Precompute(a[0].String(), a[1].Int())
			return map[string]any{"handle": h}, err
		}),
		"finish": export("finish", []js.Type{js.TypeNumber, js.TypeString, js.TypeString, js.TypeString}, func(a []js.Value) (any, error) {
			f, err := bo.Finish(a[0].Int(), a[1].String(), a[2].String(), a[3].String())
			if err != nil {
				return nil, err
			}
			return map[string]any{"ballot": f.Ballot, "tracker": f.Tracker, "ballotHash": f.BallotHash, "pseudonym": f.Pseudonym, "opening": string(f.Opening)}, nil
		}),
		"spoil": export("spoil", []js.Type{js.TypeString, js.TypeString}, func(a []js.Value) (any, error) {
			s, err := booth.Spoil(a[0].String(), a[1].String())
			if err != nil {
				return nil, err
			}
			return map[string]any{"spoiled": s.Spoiled, "tracker": s.Tracker}, nil
		}),
		"discard": export("discard", []js.Type{js.TypeNumber}, func(a []js.Value) (any, error) {
			bo.Discard(a[0].Int())
			return map[string]any{}, nil
		}),
		"verify": export("verify", []js.Type{js.TypeString, js.TypeString}, func(a []js.Value) (any, error) {
			return map[string]any{"ok": true}, booth.Verify(a[0].String(), a[1].String())
		}),
	}))
	select {} // serve calls until the page goes
}

// export wraps f as a JavaScript function that checks its arguments'
// types first (a wrong type would otherwise panic and end the module)
// and turns an error into a refusal object.
func export(name string, types []js.Type, f func([]js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != len(types) {
			return refusal(fmt.Errorf("fabvoteBooth.%s: %d arguments, want %d", name, len(args), len(types)))
		}
		for i, t := range types {
			if args[i].Type() != t {
				return refusal(fmt.Errorf("fabvoteBooth.%s: argument %d is a %s, want a %s", name, i+1, args[i].Type(), t))
			}
		}
		out, err := f(args)
		if err != nil {
			return refusal(err)
		}
		return out
	})
}

// refusal is the object a refused call returns.
func refusal(err error) map[string]any {
	return map[string]any{"error": err.Error(), "code": election.CodeOf(err)}
}

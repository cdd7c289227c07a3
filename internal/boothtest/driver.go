//go:build browser

package boothtest

import (
	"slices"
	"strings"
	"testing"
)

// Driver is how the voter works the page: by pointer or by keyboard.
type Driver interface {
	Fill(t testing.TB, p *Page, voterID, code string) // and submit
	Choose(t testing.TB, p *Page, id string)          // a radio button
	Press(t testing.TB, p *Page, id string)           // a button
}

// Pointer works the page as a mouse or a finger does: it sets the fields
// and clicks.
type Pointer struct{}

func (Pointer) Fill(t testing.TB, p *Page, voterID, code string) {
	t.Helper()
	p.Eval(t, `document.getElementById("voter-id").value = `+JSString(voterID)+`; document.getElementById("code").value = `+JSString(code)+`; true`)
	p.Eval(t, `document.getElementById("start-button").click(); true`)
}

func (Pointer) Choose(t testing.TB, p *Page, id string) {
	t.Helper()
	p.Eval(t, `document.getElementById("`+id+`").click(); true`)
}

func (Pointer) Press(t testing.TB, p *Page, id string) {
	t.Helper()
	p.Eval(t, `document.getElementById("`+id+`").click(); true`)
}

// Keyboard works the page with Tab, arrows, Space and Enter alone,
// through the browser's input events, and checks at each control that it
// is reached in order and its focus is visible.
type Keyboard struct{}

func (k Keyboard) Fill(t testing.TB, p *Page, voterID, code string) {
	t.Helper()
	k.tabTo(t, p, "voter-id")
	p.Call(t, "Input.insertText", map[string]any{"text": voterID}, nil)
	k.tabTo(t, p, "code")
	p.Call(t, "Input.insertText", map[string]any{"text": code}, nil)
	p.Key(t, "Enter", "Enter", 13, "\r")
}

func (k Keyboard) Choose(t testing.TB, p *Page, id string) {
	t.Helper()
	// A radio group is one tab stop; the arrows move the choice in it.
	k.tabTo(t, p, "c0-o0", id)
	for range 8 {
		if p.EvalString(t, `document.activeElement.id`) == id {
			break
		}
		p.Key(t, "ArrowDown", "ArrowDown", 40, "")
	}
	if p.Eval(t, `document.getElementById("`+id+`").checked`) != true {
		t.Fatalf("the arrows did not choose #%s", id)
	}
}

// Press tabs to button id, unless the page put the focus on it, and
// presses Space.
func (k Keyboard) Press(t testing.TB, p *Page, id string) {
	t.Helper()
	if p.EvalString(t, `document.activeElement.id`) != id {
		k.tabTo(t, p, id)
	}
	p.Key(t, " ", "Space", 32, " ")
}

// tabTo presses Tab until one of ids has the focus, and fails if the
// page's order does not reach it soon or its focus is not visible.
func (Keyboard) tabTo(t testing.TB, p *Page, ids ...string) {
	t.Helper()
	var path []string
	for range 12 {
		p.Key(t, "Tab", "Tab", 9, "")
		at := p.EvalString(t, `document.activeElement.id`)
		path = append(path, at)
		if slices.Contains(ids, at) {
			if o := p.EvalString(t, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
				t.Errorf("#%s has the focus but no visible outline", at)
			}
			return
		}
	}
	t.Fatalf("Tab does not reach #%s; it went %v", ids[0], path)
}

// JSString is s as a JavaScript string literal.
func JSString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

package fabrun

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWithOrg(t *testing.T) {
	config := json.RawMessage(`{"channel_group":{"groups":{"Application":{"groups":{"EAMSP":{"values":{}}},"mod_policy":"Admins"}},"version":"3"}}`)
	group := map[string]any{"values": map[string]any{"MSP": map[string]any{}}}
	updated, err := withOrg(config, "Party3MSP", group)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(updated, &c); err != nil {
		t.Fatal(err)
	}
	app, err := dig(c, "channel_group", "groups", "Application", "groups")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := app["Party3MSP"]; !ok {
		t.Errorf("Party3MSP not added: %s", updated)
	}
	if _, ok := app["EAMSP"]; !ok {
		t.Errorf("EAMSP lost: %s", updated)
	}
	if _, err := withOrg(config, "EAMSP", group); err == nil || !strings.Contains(err.Error(), "already on the channel") {
		t.Errorf("adding an org already there: %v", err)
	}
	if _, err := withOrg(json.RawMessage(`{"channel_group":{}}`), "Party3MSP", group); err == nil || !strings.Contains(err.Error(), "no groups") {
		t.Errorf("a config without Application groups: %v", err)
	}
}

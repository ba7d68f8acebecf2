package tfd

import (
	"strings"
	"testing"
)

func TestSetDefaultDeviceTakesTheHostsNamesAndAuto(t *testing.T) {
	defer SetDefaultDevice("")
	for _, name := range []string{"", "none", "cpu", " CPU ", "/device:CPU:0", "auto"} {
		if err := SetDefaultDevice(name); err != nil {
			t.Errorf("SetDefaultDevice(%q): %v", name, err)
		}
	}
}

func TestSetDefaultDeviceRefusesBadNamesNamingThem(t *testing.T) {
	defer SetDefaultDevice("")
	for _, name := range []string{"gpu0", "/device:GPU:4096", "/device:CPU:3"} {
		err := SetDefaultDevice(name)
		if CodeOf(err) != InvalidArgument {
			t.Errorf("SetDefaultDevice(%q) = %v, want INVALID_ARGUMENT", name, err)
			continue
		}
		if !strings.Contains(err.Error(), `"`+name+`"`) {
			t.Errorf("SetDefaultDevice(%q): the error does not name it: %v", name, err)
		}
	}
}

package session

import (
	"reflect"
	"runtime"
	"testing"
)

func TestCompleteLinuxHints(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the Linux rules")
	}
	arch := map[string]string{"amd64": "x86", "arm64": "arm"}[runtime.GOARCH]
	switched := func(brands ...uaBrand) *uaMetadata {
		return &uaMetadata{Brands: brands, Platform: "Linux"}
	}
	md := switched(uaBrand{"Not:A-Brand", "8"}, uaBrand{"Chromium", "156"})
	if !completeLinuxHints(md, "Chrome/156.0.8078.114") {
		t.Fatal("Chromium's hints not completed")
	}
	want := &uaMetadata{
		Brands:          []uaBrand{{"Not:A-Brand", "8"}, {"Chromium", "156"}},
		FullVersionList: []uaBrand{{"Not:A-Brand", "8.0.0.0"}, {"Chromium", "156.0.8078.114"}},
		FullVersion:     "156.0.8078.114", Platform: "Linux", Architecture: arch, Bitness: "64",
		FormFactors: []string{"Desktop"},
	}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("got %+v\nwant %+v", md, want)
	}
	for name, c := range map[string]struct {
		md      *uaMetadata
		product string
	}{
		"another brand":      {switched(uaBrand{"Microsoft Edge", "156"}, uaBrand{"Chromium", "156"}), "Chrome/156.0.8078.114"},
		"another major":      {switched(uaBrand{"Chromium", "155"}), "Chrome/156.0.8078.114"},
		"no version":         {switched(uaBrand{"Chromium", "156"}), "HeadlessChrome"},
		"another platform":   {&uaMetadata{Brands: []uaBrand{{"Chromium", "156"}}, Platform: "Windows"}, "Chrome/156.0.8078.114"},
		"no brands":          {switched(), "Chrome/156.0.8078.114"},
		"nothing learned":    {nil, "Chrome/156.0.8078.114"},
		"odd grease version": {switched(uaBrand{"Not_A Brand", "x"}, uaBrand{"Chromium", "156"}), "Chrome/156.0.8078.114"},
	} {
		if completeLinuxHints(c.md, c.product) {
			t.Errorf("%s: completed %+v", name, c.md)
		}
	}
}

package policy_test

import (
	"fmt"
	"time"

	"github.com/lyrad/lyrad/policy"
)

// The guard's Decider in miniature: classify the paused request against the
// document that sent it, judge it, and carry Allow, Reason and Fields into
// cdpguard.Verdict.
func Example() {
	grants := policy.NewGrants(0, nil)
	trusted, warnings := policy.ParseTrusted("kvraudio.com, *.kvraudio.com junk!!")
	fmt.Println(warnings)

	// The agent clicked with submits=true on a page the user approved.
	page := "https://shop.example/cart"
	shop, _ := policy.OriginOf(page)
	grants.Grant("s1", shop.Scope(), policy.Navigate, policy.GrantOptions{Channel: policy.ChannelElicit})
	grants.Grant("s1", shop.Scope(), policy.Submit, policy.GrantOptions{Channel: policy.ChannelElicit})
	// The form goes to the payment site: the user approved going there too.
	grants.Grant("s1", policy.ScopeOf("https://pay.test/"), policy.Navigate, policy.GrantOptions{Channel: policy.ChannelElicit})

	decide := func(r policy.Request, current string) policy.Verdict {
		return policy.Judge(policy.Judgement{
			Class:    policy.Classify(r, current),
			Session:  "s1",
			Grants:   grants,
			Now:      time.Now(),
			Mode:     policy.Enforce,
			Trust:    policy.Trust{Navigate: trusted},
			Declared: policy.Declared{Submit: true, Origin: shop},
		})
	}
	for _, r := range []policy.Request{
		{URL: "https://pay.test/charge", Method: "POST", HasBody: true},
		{URL: "https://pay.test/charge", Method: "POST", HasBody: true},
		{URL: "https://www.kvraudio.com/forum"},
		{URL: "https://evil.test/", IsRedirect: true, RedirectFrom: "https://shop.example/go?to=evil", RedirectStatus: 302},
	} {
		v := decide(r, page)
		fmt.Printf("allow=%v %s %s channel=%q send=%q redirected_to=%q\n",
			v.Allow, v.Kind, v.Reason, v.ConsentChannel, v.CrossOriginSend, v.RedirectedTo)
	}
	// Output:
	// ["junk!!" dropped: a character no host name has]
	// allow=true submission granted channel="elicit" send="https://pay.test" redirected_to=""
	// allow=false submission not_granted channel="" send="https://pay.test" redirected_to=""
	// allow=true leaving trusted channel="trusted" send="" redirected_to=""
	// allow=false leaving not_granted channel="" send="" redirected_to="https://evil.test"
}

package mockserver_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/signup"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// browserNames are the names Chromium and Chrome are installed under.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// findBrowser is the path of a Chromium or Chrome ($CHROME_PATH first). When
// there is none the test skips, saying how to install one; under CI
// (CI=true) a missing browser is a failure, so the test cannot pass there
// without running.
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "no Chromium found (looked for %s and $CHROME_PATH): install it to run the dashboard's browser test, " +
		"on Debian or Ubuntu with `sudo apt-get install chromium` (macOS: `brew install --cask chromium`)"
	if os.Getenv("CI") == "true" {
		t.Fatalf(how, strings.Join(browserNames, ", "))
	}
	t.Skipf(how, strings.Join(browserNames, ", "))
	return ""
}

// artifactDir is where the test leaves its screenshot: the directory given
// with `go test -outputdir DIR`, else a temporary directory of the test
// (removed when it ends; the test logs the path either way).
func artifactDir(t *testing.T) string {
	if f := flag.Lookup("test.outputdir"); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return t.TempDir()
}

// TestBrowserDashboard drives the dashboard in a real, headless Chromium:
// it loads the page, sees a request the test makes appear in the journal
// without a reload and opens its bodies, advances one tenant's clock with
// its button and sees that tenant's call complete, replays the call's
// webhook delivery with its button, runs the receiver checks on two
// subscriptions and reads the reports, works buttons with the keyboard,
// narrows the page to one tenant, adds and removes a fault rule with the
// form, and saves a screenshot (dashboard.png).
func TestBrowserDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the browser test runs in the full suite (go test ./...)")
	}
	browser := findBrowser(t)
	start := time.Date(2026, 6, 5, 19, 0, 0, 0, time.UTC)
	srv := mockserver.Start(t, mockserver.WithStartTime(start), mockserver.WithIDSeed(7))
	ctx := context.Background()

	acme, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing", Email: "owner@acme.example"})
	require.NoError(t, err)
	globex, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Globex Dental", Email: "desk@globex.example"})
	require.NoError(t, err)
	c := client.New(acme.APIKey, voiceagent.WithBaseURL(srv.URL))
	g := client.New(globex.APIKey, voiceagent.WithBaseURL(srv.URL))

	// A receiver that is down until the test "fixes" it, so the call's
	// webhook fails, and its replay succeeds.
	var receiverUp atomic.Bool
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !receiverUp.Load() {
			http.Error(w, "receiver down", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)

	// Some life on the other tenant and in the outbox before the page opens.
	_, err = g.Calls.Create(ctx, &calls.CreateParams{AgentID: globex.AgentID, To: "+15551230002"})
	require.NoError(t, err)
	anon := client.New("", voiceagent.WithBaseURL(srv.URL))
	_, err = anon.Signup.Request(ctx, &signup.RequestParams{Fields: signup.Fields{BusinessName: "Initech", Email: "owner@initech.example"}})
	require.NoError(t, err)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.WindowSize(1280, 800), // a laptop screen,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root in its sandbox
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer cancelBrowser()
	bctx, cancelTimeout := context.WithTimeout(bctx, 90*time.Second)
	defer cancelTimeout()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, steps...), what)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, "the text of %s", sel)
		return s
	}
	// clockOf is the time a tenant row shows, as RFC 3339.
	clockOf := func(row string) string {
		t.Helper()
		attrs, err := chromedp.Run(bctx, chromedp.Attributes(chromedp.CSS(row+` time`)))
		require.NoError(t, err, "the time of %s", row)
		return attrs["datetime"]
	}

	// Uncaught exceptions and console errors of the page fail the test.
	var (
		pageErrorsMu sync.Mutex
		pageErrors   []string
	)
	pageError := func(text string) {
		pageErrorsMu.Lock()
		defer pageErrorsMu.Unlock()
		pageErrors = append(pageErrors, text)
	}
	exceptions := chromedp.Events(bctx, cdpruntime.ExceptionThrown)
	consoleCalls := chromedp.Events(bctx, cdpruntime.ConsoleAPICalled)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			text := ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				text += " " + ev.ExceptionDetails.Exception.Description
			}
			pageError(text)
		}
	}()
	go func() {
		for ev, err := range consoleCalls {
			if err != nil {
				return
			}
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError {
				args := []string{}
				for _, a := range ev.Args {
					args = append(args, a.Description+string(a.Value))
				}
				pageError("console.error: " + strings.Join(args, " "))
			}
		}
	}()
	defer func() {
		pageErrorsMu.Lock()
		defer pageErrorsMu.Unlock()
		assert.Empty(t, pageErrors, "errors in the page")
	}()

	// The page loads and lists both tenants with their clocks.
	acmeRow := fmt.Sprintf(`#tenants-body tr[data-business="%s"]`, acme.BusinessID)
	globexRow := fmt.Sprintf(`#tenants-body tr[data-business="%s"]`, globex.BusinessID)
	do("load the dashboard",
		chromedp.Navigate(srv.AdminURL+"/ui"),
		chromedp.WaitVisible(chromedp.CSS(acmeRow)),
		chromedp.WaitVisible(chromedp.CSS(globexRow)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox-body tr[data-message]`)),
	)
	assert.Contains(t, text(acmeRow), "Acme Plumbing")
	assert.Equal(t, "2026-06-05T19:00:00.000000000Z", clockOf(acmeRow), "the tenant's own clock")
	assert.Contains(t, text(`#outbox-body`), "owner@initech.example", "the signup code's email")

	// Acme's pending script steps are listed until a call uses them.
	steps, err := acme.Script(mockserver.Script{
		Calls: []mockserver.CallStep{{To: "+15551230001", Outcome: "completed", Summary: "Scripted."}},
		Texts: []mockserver.TextStep{{To: "*", Outcome: "failed"}},
	})
	require.NoError(t, err)
	callStep := fmt.Sprintf(`#scripts-body tr[data-step="%s"]`, steps[0].ID)
	textStep := fmt.Sprintf(`#scripts-body tr[data-step="%s"]`, steps[1].ID)
	do("see the pending steps", chromedp.WaitVisible(chromedp.CSS(callStep)), chromedp.WaitVisible(chromedp.CSS(textStep)))
	assert.Contains(t, text(callStep), "Acme Plumbing")
	assert.Contains(t, text(textStep), "any number")

	// A request made now appears in the journal without a reload.
	hook := receiver.URL + "/call-hook"
	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acme.AgentID, To: "+15551230001", WebhookURL: &hook})
	require.NoError(t, err)
	do("see the call's step used", chromedp.WaitNotPresent(chromedp.CSS(callStep)), chromedp.WaitVisible(chromedp.CSS(textStep)))
	task := fmt.Sprintf(`#schedule-body tr[data-task="%s"][data-kind="call.answer"]`, call.ID)
	do("see the call's next step in the upcoming work", chromedp.WaitVisible(chromedp.CSS(task)))
	assert.Contains(t, text(task), "Acme Plumbing")
	seq := srv.LatestRequestSeq()
	entry := fmt.Sprintf(`#journal-body tr[data-seq="%d"]`, seq)
	detailSel := fmt.Sprintf(`#req-%d-detail`, seq)
	do("see the request in the journal",
		chromedp.WaitVisible(chromedp.CSS(entry)),
		chromedp.Click(chromedp.CSS(entry+` button`)),
		chromedp.WaitVisible(chromedp.CSS(detailSel)),
	)
	entryText, detail := text(entry), text(detailSel)
	assert.Contains(t, entryText, "POST")
	assert.Contains(t, entryText, "/api/v1/calls")
	assert.Contains(t, entryText, "201")
	assert.Contains(t, entryText, "Acme Plumbing", "the tenant by name")
	assert.Contains(t, detail, `"to": "+15551230001"`, "the request body")
	assert.Contains(t, detail, call.ID, "the response body")
	assert.Contains(t, detail, "[redacted]", "the key is redacted")
	assert.NotContains(t, detail, acme.APIKey)

	// Advancing Acme's clock by an hour with its button completes Acme's
	// call, and only Acme's clock moves.
	callRow := fmt.Sprintf(`#calls-body tr[data-call="%s"]`, call.ID)
	do("advance Acme's clock",
		chromedp.WaitVisible(chromedp.CSS(callRow+`[data-state="queued"]`)),
		chromedp.Click(chromedp.CSS(acmeRow+` button[data-advance="3600"]`)),
		chromedp.WaitVisible(chromedp.CSS(callRow+`[data-state="completed"]`)),
		chromedp.WaitVisible(chromedp.CSS(acmeRow+` time[datetime^="2026-06-05T20:00:00"]`)),
	)
	got, err := c.Calls.Get(ctx, call.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, got.Status)
	assert.Equal(t, "2026-06-05T19:00:00.000000000Z", clockOf(globexRow), "Globex's clock did not move")
	assert.Equal(t, start, globex.Now())

	// The call's webhook fails while the receiver is down; a day and more
	// on Acme's clock runs out its retries, and once the receiver is up
	// the replay button sends it again.
	hooks := srv.Deliveries(mockserver.DeliveryFilter{CallID: call.ID})
	require.Len(t, hooks, 1)
	require.NotEmpty(t, hooks[0].Attempts)
	assert.Equal(t, http.StatusServiceUnavailable, hooks[0].Attempts[0].StatusCode)
	failed := fmt.Sprintf(`#deliveries-body tr[data-delivery="%s"][data-state="failed"]`, hooks[0].ID)
	do("run out of retries",
		chromedp.Click(chromedp.CSS(acmeRow+` button[data-advance="86400"]`)),
		chromedp.WaitVisible(chromedp.CSS(acmeRow+` time[datetime^="2026-06-06T20:00:00"]`)),
		chromedp.Click(chromedp.CSS(acmeRow+` button[data-advance="86400"]`)),
		chromedp.WaitVisible(chromedp.CSS(failed)),
	)
	receiverUp.Store(true)
	do("replay the delivery",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[data-replay="%s"]`, hooks[0].ID))),
		chromedp.WaitVisible(chromedp.CSS(`#deliveries-body tr[data-state="succeeded"]`)),
	)
	var replay mockserver.Delivery
	for _, d := range srv.Deliveries(mockserver.DeliveryFilter{CallID: call.ID}) {
		if d.ReplayOf == hooks[0].ID {
			replay = d
		}
	}
	require.NotEmpty(t, replay.ID, "a new delivery replays the failed one")
	assert.Equal(t, mockserver.DeliverySucceeded, replay.Status)
	replayRow := fmt.Sprintf(`#deliveries-body tr[data-delivery="%s"]`, replay.ID)
	do("open the replay's attempts",
		chromedp.Click(chromedp.CSS(replayRow+` button[aria-expanded]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#del-%s-detail`, replay.ID))),
	)
	assert.Contains(t, text(replayRow), "replay of")
	assert.Contains(t, text(fmt.Sprintf(`#del-%s-detail`, replay.ID)), call.ID, "the body")

	// The receiver checks of a subscription, from its delivery's button: a
	// receiver built on the SDK's Handler passes; one that accepts
	// everything fails each rejects_* check.
	h, err := webhooks.NewHandler(webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	h.OnAny(func(context.Context, *webhooks.Event) error { return nil })
	goodRecv := httptest.NewServer(h)
	t.Cleanup(goodRecv.Close)
	goodSub, err := c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: acme.BusinessID, WebhookURL: goodRecv.URL + "/hooks",
		Events: []webhooks.EventType{webhooks.EventLeadCreated}})
	require.NoError(t, err)
	require.NoError(t, h.SetSecrets(goodSub.Secret))
	badSub, err := c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: acme.BusinessID, WebhookURL: receiver.URL + "/accepts-all",
		Events: []webhooks.EventType{webhooks.EventLeadCreated}})
	require.NoError(t, err)
	_, err = acme.EmitEvent(webhooks.EventLeadCreated, nil)
	require.NoError(t, err)
	do("check the good receiver",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[data-check="%s"]`, goodSub.ID))),
		chromedp.WaitVisible(chromedp.CSS(`#receiver-check h3[data-passed="true"]`)),
	)
	assert.Contains(t, text(`#receiver-check h3`), "Receiver checks of "+goodRecv.URL+"/hooks")
	rows, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('#receiver-check tr[data-check-id][data-passed="true"]').length`))
	require.NoError(t, err)
	assert.Equal(t, 27+9, rows, "every check passed")
	do("check the receiver that accepts everything",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[data-check="%s"]`, badSub.ID))),
		chromedp.WaitVisible(chromedp.CSS(`#receiver-check h3[data-passed="false"]`)),
	)
	failedIDs, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#receiver-check tr[data-passed="false"]')].map((r) => r.dataset.checkId)`))
	require.NoError(t, err)
	assert.Equal(t, []string{"rejects_tampered_body", "rejects_wrong_secret", "rejects_missing_signature", "rejects_stale_timestamp", "rejects_future_timestamp"}, failedIDs)
	assert.Contains(t, text(`#receiver-check tr[data-check-id="rejects_wrong_secret"]`), "curl -X POST", "the request, to send again")

	// The keyboard works the buttons, and focus stays put while a table
	// refreshes: Enter on Globex's "+1 min", then Tab to "+10 min" and
	// Space.
	do("advance Globex with the keyboard",
		chromedp.Focus(chromedp.CSS(globexRow+` button[data-advance="60"]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(globexRow+` time[datetime^="2026-06-05T19:01:00"]`)),
		chromedp.KeyEvent(kb.Tab),
		chromedp.KeyEvent(" "),
		chromedp.WaitVisible(chromedp.CSS(globexRow+` time[datetime^="2026-06-05T19:11:00"]`)),
	)
	focused, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.activeElement.getAttribute('aria-label')`))
	require.NoError(t, err)
	assert.Equal(t, "Advance Globex Dental by 10 minutes", focused)
	assert.Equal(t, start.Add(11*time.Minute), globex.Now())

	// Copy makes a new tenant with Globex's records on a clock of its own,
	// listed at Globex's time; the snapshot link names the tenant's document.
	before := len(srv.Tenants())
	do("copy Globex",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[data-copy="%s"]`, globex.BusinessID))),
		chromedp.WaitVisible(chromedp.CSS(`#status`)),
	)
	var copied mockserver.Tenant
	require.Eventually(t, func() bool {
		ts := srv.Tenants()
		if len(ts) == before+1 {
			copied = ts[len(ts)-1]
		}
		return copied.BusinessID != ""
	}, 10*time.Second, 20*time.Millisecond)
	copyRow := fmt.Sprintf(`#tenants-body tr[data-business="%s"]`, copied.BusinessID)
	do("see the copy", chromedp.WaitVisible(chromedp.CSS(copyRow)))
	assert.Contains(t, text(copyRow), "Globex Dental")
	assert.Equal(t, clockOf(globexRow), clockOf(copyRow), "the copy starts at Globex's time")
	assert.Contains(t, text(`#status`), copied.BusinessID)
	href, err := chromedp.Run(bctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('%s a[download]').getAttribute('href')`, globexRow)))
	require.NoError(t, err)
	assert.Equal(t, "/_mock/snapshot?business_id="+globex.BusinessID, href)

	// The tenant selector narrows the panels to one tenant.
	selectTenant := func(id string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[bool](fmt.Sprintf(
				`(() => { const s = document.getElementById('tenant-filter'); s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, id))(ctx, tg)
			return chromedp.Void{}, err
		}
	}
	do("show Globex only",
		selectTenant(globex.BusinessID),
		chromedp.WaitNotPresent(chromedp.CSS(callRow)),
		chromedp.WaitNotPresent(chromedp.CSS(entry)),
		chromedp.WaitVisible(chromedp.CSS(`#calls-body tr[data-call]`)),
	)
	assert.NotContains(t, text(`#journal-body`), "Acme Plumbing")
	assert.Contains(t, text(`#calls-body`), "+15551230002")
	do("show every tenant", selectTenant(""), chromedp.WaitVisible(chromedp.CSS(callRow)), chromedp.WaitVisible(chromedp.CSS(entry)))

	// A fault rule added with the form, for Acme only, then removed.
	do("add a fault rule",
		chromedp.SetValue(chromedp.ID("ff-path"), "/v1/numbers"),
		chromedp.SetValue(chromedp.ID("ff-status"), "503"),
		chromedp.SetValue(chromedp.ID("ff-tenant"), acme.BusinessID),
		chromedp.Click(chromedp.CSS(`#fault-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#faults-body tr[data-fault]`)),
	)
	rules := srv.Faults()
	require.Len(t, rules, 1)
	assert.Equal(t, "/api/v1/numbers", rules[0].Path)
	assert.Equal(t, 503, rules[0].Status)
	assert.Equal(t, acme.BusinessID, rules[0].BusinessID)
	_, err = g.Numbers.List(ctx, nil)
	require.NoError(t, err, "the rule is Acme's only")
	_, err = c.Numbers.List(ctx, nil)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 503, apiErr.StatusCode)
	// The page re-renders the rule's row when its count of fired
	// requests changes: wait for the count the server has, so that the
	// button clicked is the one on the page.
	fired := srv.Faults()[0].Fired
	require.Positive(t, fired)
	_, err = chromedp.Run(bctx, chromedp.Poll[bool](fmt.Sprintf(
		`document.querySelector('#faults-body tr[data-fault="%s"] td:nth-child(7)')?.textContent === '%d'`, rules[0].ID, fired)))
	require.NoError(t, err, "the page shows the rule fired %d times", fired)
	do("remove the fault rule",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[data-remove-fault="%s"]`, rules[0].ID))),
		chromedp.WaitNotPresent(chromedp.CSS(`#faults-body tr[data-fault]`)),
	)
	assert.Empty(t, srv.Faults())
	assert.NotContains(t, text(`#status`), "failed", "no action of the page failed")

	// The screenshot (PNG): the whole page, with a fault rule listed, the
	// journal entry open, and the failed delivery's attempts under its
	// replay.
	_, err = srv.AddFault(mockserver.FaultRule{Path: "/v1/sms/send", Status: 500, Times: 2})
	require.NoError(t, err)
	do("show the rule and the failed delivery's attempts",
		chromedp.WaitVisible(chromedp.CSS(`#faults-body tr[data-fault]`)),
		chromedp.Click(chromedp.CSS(replayRow+` button[aria-expanded]`)),
		chromedp.WaitNotPresent(chromedp.CSS(fmt.Sprintf(`#del-%s-detail`, replay.ID))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#deliveries-body tr[data-delivery="%s"] button[aria-expanded]`, hooks[0].ID))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#del-%s-detail`, hooks[0].ID))),
	)
	_, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`document.querySelectorAll('.scroll').forEach((e) => { e.scrollTop = 0; }); true`))
	require.NoError(t, err)
	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	out := filepath.Join(artifactDir(t), "dashboard.png")
	require.NoError(t, os.WriteFile(out, png, 0o644))
	t.Logf("screenshot: %s", out)
}

// The mock server's dashboard: plain JavaScript on the admin API (/_mock),
// no framework, no build step, nothing loaded from outside. Every value the
// server sends is put in the page as text (textContent), never as HTML: the
// journal shows request bodies that anybody may have sent.
'use strict';

const state = {
  tenant: '',          // the selected tenant's business id ('' all)
  tenants: [],         // [{business_id, business_name, email, now}] (GET /_mock/tenants)
  names: new Map(),    // business id -> name, for the tables
  journal: [],         // entries shown, newest first
  journalSeq: 0,       // the newest seq read
  journalAbort: null,  // ends the running long-poll
  journalFilters: {},  // method, path, status
  expanded: new Set(), // keys of the rows whose details are shown
  last: {},            // what each panel last rendered (JSON), to skip unchanged renders
};

const JOURNAL_ROWS = 300;
const REFRESH_MS = 1500;
const ADVANCES = [
  [60, '+1 min', '1 minute'],
  [600, '+10 min', '10 minutes'],
  [3600, '+1 h', '1 hour'],
  [86400, '+1 day', '1 day'],
];

// el makes an element: attributes (on* are listeners), then children
// (strings become text nodes).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const $ = (id) => document.getElementById(id);

// api calls the admin API; an error answer throws with its code and message.
async function api(method, path, body, signal) {
  const opts = { method, headers: {}, signal };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const text = await r.text();
  let data = text;
  try { data = JSON.parse(text); } catch (_) { /* not JSON */ }
  if (!r.ok) {
    const err = new Error(data && data.error ? `${data.error.code}: ${data.error.message}` : `HTTP ${r.status}`);
    err.status = r.status;
    throw err;
  }
  return data;
}

function say(message, isError) {
  const s = $('status');
  s.textContent = message;
  s.classList.toggle('error', !!isError);
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v !== undefined && v !== null) q.set(k, v);
  const s = q.toString();
  return s ? '?' + s : '';
}

// time shows an RFC 3339 time as "2026-06-05 19:00:05" (UTC).
function time(t) {
  if (!t) return '';
  return String(t).replace('T', ' ').replace(/\.\d+/, '').replace('Z', '');
}

// when is a table cell's time: the date above the time of day, so that
// narrow columns stay readable.
function when(t) {
  if (!t) return '';
  const [date, clock] = time(t).split(' ');
  return el('time', { datetime: t }, date, el('br'), clock);
}

// clip shortens text to n characters, marking the cut.
function clip(text, n) { return text.length > n ? text.slice(0, n) + '…' : text; }

function short(id) { return id ? String(id).slice(0, 8) : ''; }

function tenantName(id) {
  if (!id) return '';
  return state.names.get(id) || short(id);
}

function badge(text, kind) { return el('span', { class: 'badge ' + kind }, text); }

function statusBadge(code) {
  const kind = code >= 500 || code === 0 ? 'bad' : code >= 400 ? 'warn' : 'ok';
  return badge(code === 0 ? 'dropped' : String(code), kind);
}

function stateBadge(s) {
  const kinds = {
    completed: 'ok', succeeded: 'ok', ended: 'ok', sent: 'ok', delivered: 'ok',
    failed: 'bad', 'no-answer': 'bad', canceled: 'warn',
    queued: 'info', ringing: 'info', 'in-progress': 'info', pending: 'info',
  };
  return badge(s, kinds[s] || 'info');
}

function emptyRow(tbody, cols, text) {
  tbody.append(el('tr', { class: 'empty' }, el('td', { colspan: cols }, text)));
}

// render replaces a table body when its data changed, keeping the focus on
// the control (data-key) that had it.
function render(name, tbody, data, fill) {
  const json = JSON.stringify(data) + '|' + [...state.expanded].join(',') + '|' + JSON.stringify([...state.names]);
  if (state.last[name] === json) return;
  state.last[name] = json;
  const active = document.activeElement;
  const key = active && tbody.contains(active) ? active.dataset.key : null;
  tbody.replaceChildren();
  fill(tbody);
  if (key) {
    const again = tbody.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}

// toggle shows or hides the details of a row.
function toggle(key) {
  if (state.expanded.has(key)) state.expanded.delete(key);
  else state.expanded.add(key);
}

// prettyBody shows a body: a JSON value (the journal's JSON bodies) or text
// that parses as JSON indented, other text as it is.
function prettyBody(body) {
  if (body === undefined || body === null && arguments.length === 0) return '';
  if (typeof body !== 'string') return JSON.stringify(body, null, 2);
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch (_) { return body; }
}

function headerLines(h) {
  return Object.keys(h || {}).sort().map((k) => `${k}: ${h[k].join(', ')}`).join('\n');
}

// --- Tenants and clocks ---------------------------------------------------

async function loadTenants() {
  const [{ tenants }, clock] = await Promise.all([api('GET', '/_mock/tenants'), api('GET', '/_mock/clock')]);
  $('base-now').textContent = time(clock.now);
  $('base-now').setAttribute('datetime', clock.now);
  state.tenants = tenants;
  for (const t of tenants) state.names.set(t.business_id, t.business_name || t.email || short(t.business_id));
  fillTenantSelects();
  render('tenants', $('tenants-body'), { tenants, now: clock.now }, (tbody) => {
    const rows = [{ business_id: '', business_name: 'All tenants', now: clock.now }, ...tenants];
    for (const t of rows) {
      const label = t.business_name || t.email || short(t.business_id);
      const buttons = ADVANCES.map(([secs, text, words]) => el('button', {
        type: 'button',
        'data-key': `adv-${t.business_id}-${secs}`,
        'data-advance': secs,
        'data-business': t.business_id,
        'aria-label': `Advance ${t.business_id ? label : 'every tenant'} by ${words}`,
        onclick: () => advance(t.business_id, secs, label),
      }, text));
      const world = [el('a', {
        href: '/_mock/snapshot' + query({ business_id: t.business_id }),
        download: t.business_id ? `snapshot-${t.business_id}.json` : 'snapshot.json',
        'aria-label': `Download a snapshot of ${t.business_id ? label : 'the whole server'}`,
      }, 'Snapshot')];
      if (t.business_id) {
        world.push(el('button', {
          type: 'button',
          'data-key': `copy-${t.business_id}`,
          'data-copy': t.business_id,
          'aria-label': `Copy ${label}: a new tenant with the same records`,
          onclick: () => copyTenant(t.business_id, label),
        }, 'Copy'));
      }
      tbody.append(el('tr', { 'data-business': t.business_id },
        el('th', { scope: 'row' }, label, t.email ? el('div', { class: 'note' }, t.email) : null,
          t.business_id ? el('div', { class: 'mono id' }, t.business_id) : el('div', { class: 'note' }, 'the base time; advancing moves every clock')),
        el('td', {}, when(t.now)),
        el('td', {}, el('div', { class: 'buttons' }, buttons)),
        el('td', {}, el('div', { class: 'buttons' }, world))));
    }
  });
}

function fillTenantSelects() {
  for (const id of ['tenant-filter', 'ff-tenant']) {
    const sel = $(id);
    const want = state.tenants.map((t) => t.business_id).join(',');
    if (sel.dataset.tenants === want) continue;
    sel.dataset.tenants = want;
    const keep = sel.value;
    sel.replaceChildren(sel.options[0]);
    for (const t of state.tenants) sel.append(el('option', { value: t.business_id }, state.names.get(t.business_id)));
    sel.value = keep;
  }
}

// copyTenant copies a tenant (POST /_mock/accounts/copy) and says where
// the copy is; its key is shown once, as POST /_mock/accounts shows one.
async function copyTenant(businessID, label) {
  try {
    const res = await api('POST', '/_mock/accounts/copy', { business_id: businessID });
    say(`Copied ${label}: business ${res.business_id}, key ${res.api_key}.`);
    await refresh();
  } catch (e) {
    say(`Copying failed: ${e.message}`, true);
  }
}

async function advance(businessID, seconds, label) {
  const body = { seconds };
  if (businessID) body.business_id = businessID;
  try {
    const res = await api('POST', '/_mock/clock/advance', body);
    say(`Advanced ${businessID ? label : 'every tenant'} to ${time(res.now)}.`);
    await refresh();
  } catch (e) {
    say(`Advancing the clock failed: ${e.message}`, true);
  }
}

// --- Calls ----------------------------------------------------------------

async function loadCalls() {
  const calls = (await api('GET', '/_mock/calls' + query({ business_id: state.tenant, limit: 50 }))).calls || [];
  render('calls', $('calls-body'), calls, (tbody) => {
    if (!calls.length) emptyRow(tbody, 6, 'No calls yet.');
    for (const c of calls) {
      tbody.append(el('tr', { 'data-call': c.id, 'data-state': c.status },
        el('td', {}, when(c.created_at)),
        el('td', {}, tenantName(c.business_id)),
        el('td', {}, el('span', { class: 'mono' }, c.to),
          el('div', { class: 'note' }, `${c.direction}${c.from ? ' from ' + c.from : ''}`)),
        el('td', {}, stateBadge(c.status), c.error ? el('div', { class: 'note' }, c.error) : null),
        el('td', { class: 'num' }, c.duration ? `${c.duration} s` : ''),
        el('td', {}, when(c.ended_at))));
    }
  });
}

// maxPanelTenants is how many tenants the per-tenant panels (upcoming work,
// scripts) read at once when no tenant is selected: each tenant is one
// request per refresh.
const maxPanelTenants = 20;

// panelTenants returns the tenants the per-tenant panels read: the selected
// one, else the newest maxPanelTenants of those loadTenants read (it runs
// first in each refresh).
function panelTenants() {
  if (state.tenant) return [state.tenant];
  return state.tenants.slice(-maxPanelTenants).map((t) => t.business_id);
}

// --- Upcoming work ----------------------------------------------------------

// loadSchedule lists the pending tasks of the selected tenant, or of every
// tenant, soonest first.
async function loadSchedule() {
  const ids = panelTenants();
  const lists = await Promise.all(ids.map((id) => api('GET', '/_mock/schedule' + query({ business_id: id }))));
  const tasks = lists.flatMap((l) => (l.tasks || []).map((t) => ({ ...t, business_id: l.business_id })))
    .sort((a, b) => a.at.localeCompare(b.at)).slice(0, 100);
  render('schedule', $('schedule-body'), tasks, (tbody) => {
    if (!tasks.length) emptyRow(tbody, 4, 'Nothing scheduled.');
    for (const t of tasks) {
      tbody.append(el('tr', { 'data-task': t.subject_id, 'data-kind': t.kind },
        el('td', {}, when(t.at)),
        el('td', {}, tenantName(t.business_id)),
        el('td', {}, t.kind, t.n ? el('div', { class: 'note' }, `#${t.n}`) : null),
        el('td', {}, el('span', { class: 'mono' }, short(t.subject_id)))));
    }
  });
}

// --- Scripts --------------------------------------------------------------

// maxPanelSteps is how many pending steps of each tenant the scripts panel
// lists: the first page of each script's pending steps.
const maxPanelSteps = 100;

// loadScripts lists the pending script steps of the selected tenant, or of
// every tenant, each tenant's oldest first.
async function loadScripts() {
  const ids = panelTenants();
  const lists = await Promise.all(ids.map((id) => api('GET', '/_mock/scripts' + query({ business_id: id, status: 'pending', limit: maxPanelSteps }))));
  const steps = lists.flatMap((l) => l.steps || []);
  render('scripts', $('scripts-body'), steps, (tbody) => {
    if (!steps.length) emptyRow(tbody, 5, 'No pending steps.');
    for (const st of steps) {
      tbody.append(el('tr', { 'data-step': st.id },
        el('td', {}, tenantName(st.business_id)),
        el('td', {}, st.kind),
        el('td', {}, el('span', { class: 'mono' }, st.to === '*' ? 'any number' : st.to)),
        el('td', {}, st.outcome, st.reply ? el('div', { class: 'note' }, `reply after ${st.reply.after_seconds || 0} s: ${clip(st.reply.body, 40)}`) : null),
        el('td', {}, when(st.created_at))));
    }
  });
}

// --- The request journal --------------------------------------------------

function journalParams(extra) {
  return query({ ...state.journalFilters, business_id: state.tenant, ...extra });
}

// startJournal reads the newest entries, then long-polls for new ones.
async function startJournal() {
  if (state.journalAbort) state.journalAbort.abort();
  const ctl = new AbortController();
  state.journalAbort = ctl;
  try {
    const page = await api('GET', '/_mock/requests' + journalParams({ limit: 100 }), undefined, ctl.signal);
    state.journal = (page.requests || []).slice().reverse();
    state.journalSeq = page.latest_seq;
    $('journal-count').textContent = `(${page.count} matching)`;
    renderJournal(new Set());
    pollJournal(ctl);
  } catch (e) {
    if (e.name !== 'AbortError') say(`Reading the journal failed: ${e.message}`, true);
  }
}

async function pollJournal(ctl) {
  while (!ctl.signal.aborted) {
    if (!$('live').checked || document.hidden) {
      await new Promise((r) => setTimeout(r, REFRESH_MS));
      continue;
    }
    try {
      const page = await api('GET', '/_mock/requests' + journalParams({ after: state.journalSeq, limit: 200, wait: '25s' }), undefined, ctl.signal);
      if (ctl.signal.aborted) return;
      if (page.latest_seq < state.journalSeq) { // the server was reset
        startJournal();
        return;
      }
      // Read on after the last entry listed when the page was full, else
      // after the newest entry of all (the others did not match).
      page.requests = page.requests || [];
      const full = page.requests.length >= 200;
      state.journalSeq = full ? page.requests[page.requests.length - 1].seq : page.latest_seq;
      if (page.requests.length) {
        const fresh = new Set(page.requests.map((e) => e.seq));
        state.journal = page.requests.slice().reverse().concat(state.journal).slice(0, JOURNAL_ROWS);
        renderJournal(fresh);
      }
    } catch (e) {
      if (e.name === 'AbortError') return;
      say(`Reading the journal failed: ${e.message}`, true);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

function renderJournal(fresh) {
  state.last.journal = null; // new entries always render
  render('journal', $('journal-body'), state.journal.map((e) => e.seq), (tbody) => {
    if (!state.journal.length) emptyRow(tbody, 9, 'No API requests yet.');
    for (const e of state.journal) {
      const key = `req-${e.seq}`;
      const open = state.expanded.has(key);
      const path = e.path + (e.query ? '?' + e.query : '');
      tbody.append(el('tr', { class: fresh.has(e.seq) ? 'fresh' : null, 'data-seq': e.seq, 'data-path': e.path },
        el('td', { class: 'num' }, e.seq),
        el('td', {}, time(e.time)),
        el('td', {}, e.method),
        el('td', { class: 'path mono' }, path, e.fault ? el('span', { class: 'note' }, ` (fault: ${e.fault})`) : null),
        el('td', {}, statusBadge(e.status), e.idempotent_replayed ? el('span', { class: 'note' }, ' replayed') : null),
        el('td', {}, tenantName(e.business_id)),
        el('td', { class: 'mono' }, e.key_prefix || ''),
        el('td', { class: 'num' }, e.duration_ms.toFixed(1)),
        el('td', {}, el('button', {
          type: 'button', 'data-key': key, 'aria-expanded': open ? 'true' : 'false', 'aria-controls': `${key}-detail`,
          'aria-label': `${open ? 'Hide' : 'Show'} request ${e.seq} headers and bodies`,
          onclick: () => { toggle(key); renderJournal(new Set()); },
        }, open ? 'Hide' : 'Show'))));
      if (open) tbody.append(el('tr', { class: 'detail', id: `${key}-detail` }, el('td', { colspan: 9 }, exchange(e))));
    }
  });
}

function message(title, m) {
  return el('div', {},
    el('h3', {}, title),
    el('pre', { 'aria-label': `${title} headers` }, headerLines(m.headers)),
    m.body !== undefined ? el('pre', { 'aria-label': `${title} body` }, prettyBody(m.body)) : el('p', { class: 'note' }, 'No body.'),
    m.truncated ? el('p', { class: 'note' }, `Truncated: the first 16 KiB of ${m.body_bytes} bytes.`) : null);
}

function exchange(e) {
  return el('div', { class: 'exchange' }, message('Request', e.request), message('Response', e.response));
}

// --- Outbox ---------------------------------------------------------------

async function loadOutbox() {
  const data = await api('GET', '/_mock/outbox' + query({ business_id: state.tenant }));
  const msgs = (data.messages || []).slice().reverse().slice(0, 100);
  render('outbox', $('outbox-body'), msgs, (tbody) => {
    if (!msgs.length) emptyRow(tbody, 5, 'Nothing sent yet.');
    for (const m of msgs) {
      tbody.append(el('tr', { 'data-message': m.id },
        el('td', {}, when(m.created_at)),
        el('td', {}, el('span', { class: 'mono' }, m.to), el('div', { class: 'note' }, m.channel === 'sms' ? 'text' : m.channel)),
        el('td', {}, m.otp_code ? el('code', { class: 'otp' }, m.otp_code) : ''),
        el('td', {}, m.link ? el('a', { href: m.link, target: '_blank', rel: 'noopener noreferrer' }, 'open link') : ''),
        el('td', {}, m.subject ? el('strong', {}, m.subject) : null,
          el('details', {}, el('summary', {}, clip(m.body || '', 60)), el('pre', {}, m.body || '')))));
    }
  });
}

// --- Webhook deliveries ---------------------------------------------------

async function loadDeliveries() {
  const data = await api('GET', '/_mock/deliveries' + query({ business_id: state.tenant }));
  const ds = (data.deliveries || []).slice().reverse().slice(0, 100);
  render('deliveries', $('deliveries-body'), ds, (tbody) => {
    if (!ds.length) emptyRow(tbody, 6, 'No deliveries yet.');
    for (const d of ds) {
      d.attempts = d.attempts || [];
      const key = `del-${d.id}`;
      const open = state.expanded.has(key);
      const last = d.attempts.length ? d.attempts[d.attempts.length - 1] : null;
      tbody.append(el('tr', { 'data-delivery': d.id, 'data-state': d.status },
        el('td', {}, when(d.created_at)),
        el('td', {}, d.event || d.kind, d.replay_of ? el('div', { class: 'note' }, `replay of ${short(d.replay_of)}`) : null),
        el('td', { class: 'path mono' }, d.attempts.length ? d.attempts[0].url : d.kind),
        el('td', {}, stateBadge(d.status)),
        el('td', { class: 'num' }, d.attempts.length, last ? el('div', { class: 'note' }, last.status_code ? `last ${last.status_code}` : (last.error || '')) : null),
        el('td', {}, el('div', { class: 'buttons' },
          el('button', {
            type: 'button', 'data-key': key, 'aria-expanded': open ? 'true' : 'false', 'aria-controls': `${key}-detail`,
            'aria-label': `${open ? 'Hide' : 'Show'} the attempts and body of delivery ${short(d.id)}`,
            onclick: () => { toggle(key); state.last.deliveries = null; loadDeliveries(); },
          }, open ? 'Hide' : 'Details'),
          el('button', {
            type: 'button', 'data-key': `replay-${d.id}`, 'data-replay': d.id,
            'aria-label': `Replay delivery ${short(d.id)} of ${d.event || d.kind}`,
            onclick: () => replay(d.id),
          }, 'Replay'),
          d.subscription_id ? el('button', {
            type: 'button', 'data-key': `check-${d.id}`, 'data-check': d.subscription_id,
            'aria-label': `Run the receiver checks on subscription ${short(d.subscription_id)}`,
            onclick: () => checkReceiver(d.subscription_id),
          }, 'Check receiver') : null))));
      if (open) tbody.append(el('tr', { class: 'detail', id: `${key}-detail` }, el('td', { colspan: 6 }, deliveryDetail(d))));
    }
  });
}

function deliveryDetail(d) {
  const rows = d.attempts.map((a) => el('tr', {},
    el('td', { class: 'num' }, a.attempt),
    el('td', {}, time(a.at)),
    el('td', {}, a.status_code ? statusBadge(a.status_code) : ''),
    el('td', {}, a.error || '', a.response ? el('div', { class: 'mono' }, clip(a.response, 200)) : null),
    el('td', { class: 'num' }, a.duration_ms !== undefined ? Number(a.duration_ms).toFixed(1) : '')));
  return el('div', {},
    el('p', { class: 'mono' }, `id ${d.id} · webhook-id ${d.message_id || ''} · ${d.kind}`),
    el('table', {},
      el('caption', { class: 'visually-hidden' }, 'Attempts of this delivery'),
      el('thead', {}, el('tr', {}, ['Attempt', 'At (simulated)', 'Answer', 'Error or answer body', 'ms'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.length ? rows : el('tr', { class: 'empty' }, el('td', { colspan: 5 }, 'No attempt yet.')))),
    el('h3', {}, 'Body'),
    el('pre', {}, prettyBody(d.body)));
}

// checkReceiver runs the receiver checks on a subscription
// (POST /_mock/receiver-checks) and shows the report under the table.
async function checkReceiver(subscriptionId) {
  const out = $('receiver-check');
  out.replaceChildren(el('p', { class: 'note' }, `Checking the receiver of subscription ${short(subscriptionId)}…`));
  try {
    const r = await api('POST', '/_mock/receiver-checks', { subscription_id: subscriptionId });
    const failed = r.checks.filter((c) => !c.passed && c.required).length;
    out.replaceChildren(
      el('h3', { 'data-passed': r.passed ? 'true' : 'false' },
        badge(r.passed ? 'passed' : 'failed', r.passed ? 'ok' : 'bad'), ` Receiver checks of ${r.url}`,
        el('span', { class: 'note' }, r.passed ? ` every required check of ${r.checks.length} passed` : ` ${failed} required check(s) failed`)),
      el('table', {},
        el('caption', { class: 'visually-hidden' }, 'Receiver checks, in the order they ran'),
        el('thead', {}, el('tr', {}, ['Check', 'Verdict', 'Answer', 'ms', 'Detail'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, r.checks.map((c) => el('tr', { 'data-check-id': c.id, 'data-passed': c.passed ? 'true' : 'false' },
          el('td', {}, c.id, c.event ? el('div', { class: 'note' }, c.event) : null),
          el('td', {}, badge(c.passed ? 'pass' : c.required ? 'fail' : 'warn', c.passed ? 'ok' : c.required ? 'bad' : 'warn')),
          el('td', {}, c.status ? statusBadge(c.status) : ''),
          el('td', { class: 'num' }, c.duration_ms),
          el('td', { class: 'mono' }, c.passed ? '' : clip(c.detail, 600)))))));
    say(`Receiver checks of subscription ${short(subscriptionId)}: ${r.passed ? 'passed' : 'failed'}.`, !r.passed);
  } catch (e) {
    out.replaceChildren(el('p', { class: 'note' }, `The receiver checks could not run: ${e.message}`));
    say(`Checking subscription ${short(subscriptionId)} failed: ${e.message}`, true);
  }
}

async function replay(id) {
  try {
    const d = await api('POST', '/_mock/deliveries/replay', { delivery_id: id });
    say(`Replayed delivery ${short(id)} as ${short(d.id)}.`);
    await loadDeliveries();
  } catch (e) {
    say(`Replaying delivery ${short(id)} failed: ${e.message}`, true);
  }
}

// --- Fault rules ----------------------------------------------------------

async function loadFaults() {
  const data = await api('GET', '/_mock/faults');
  const rules = (data.faults || []).filter((f) => !state.tenant || !f.business_id || f.business_id === state.tenant);
  render('faults', $('faults-body'), rules, (tbody) => {
    if (!rules.length) emptyRow(tbody, 9, 'No fault rules.');
    for (const f of rules) {
      const effect = [
        f.status ? `status ${f.status}${f.code ? ' ' + f.code : ''}` : '',
        f.latency_ms ? `${f.latency_ms} ms late` : '',
        f.drop ? (f.after ? 'drop after' : 'drop') : '',
        f.truncate ? 'truncate' : '',
      ].filter(Boolean).join(', ') || 'dependency fails';
      tbody.append(el('tr', { 'data-fault': f.id },
        el('td', { class: 'mono' }, f.id),
        el('td', {}, f.method || 'any'),
        el('td', { class: 'path mono' }, f.path || 'any'),
        el('td', {}, f.target),
        el('td', {}, effect),
        el('td', { class: 'num' }, f.probability ? f.probability : 1),
        el('td', { class: 'num' }, f.times ? `${f.fired} of ${f.times}` : f.fired),
        el('td', {}, f.business_id ? tenantName(f.business_id) : 'every'),
        el('td', {}, el('button', {
          type: 'button', class: 'danger', 'data-key': `rm-${f.id}`, 'data-remove-fault': f.id,
          'aria-label': `Remove fault rule ${f.id}`, onclick: () => removeFault(f.id),
        }, 'Remove'))));
    }
  });
}

async function addFault(ev) {
  ev.preventDefault();
  const form = ev.target;
  const rule = {};
  for (const name of ['method', 'path', 'target', 'business_id']) {
    const v = form.elements[name].value.trim();
    if (v) rule[name] = v;
  }
  for (const name of ['status', 'latency_ms', 'times']) {
    const v = form.elements[name].value.trim();
    if (v) rule[name] = Number.parseInt(v, 10);
  }
  const p = form.elements.probability.value.trim();
  if (p) rule.probability = Number.parseFloat(p);
  if (form.elements.drop.checked) rule.drop = true;
  if (form.elements.truncate.checked) rule.truncate = true;
  try {
    const f = await api('POST', '/_mock/faults', rule);
    say(`Added fault rule ${f.id}.`);
    form.reset();
    await loadFaults();
  } catch (e) {
    say(`Adding the fault rule failed: ${e.message}`, true);
  }
}

async function removeFault(id) {
  try {
    await api('DELETE', '/_mock/faults' + query({ id }));
    say(`Removed fault rule ${id}.`);
    await loadFaults();
  } catch (e) {
    say(`Removing fault rule ${id} failed: ${e.message}`, true);
  }
}

async function clearFaults() {
  try {
    await api('DELETE', '/_mock/faults');
    say('Removed every fault rule.');
    await loadFaults();
  } catch (e) {
    say(`Removing the fault rules failed: ${e.message}`, true);
  }
}

// --- Refreshing -----------------------------------------------------------

async function refresh() {
  // The tenants first: the per-tenant panels read their list (panelTenants).
  const tenants = await Promise.allSettled([loadTenants()]);
  const parts = [loadCalls, loadSchedule, loadScripts, loadOutbox, loadDeliveries, loadFaults];
  const results = tenants.concat(await Promise.allSettled(parts.map((f) => f())));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) say(`Refreshing failed: ${failed.reason.message}`, true);
}

async function loop() {
  for (;;) {
    await new Promise((r) => setTimeout(r, REFRESH_MS));
    if ($('live').checked && !document.hidden) await refresh();
  }
}

function init() {
  $('api-base').textContent = location.origin + '/api';
  $('tenant-filter').addEventListener('change', (ev) => {
    state.tenant = ev.target.value;
    state.last = {};
    refresh();
    startJournal();
  });
  $('journal-filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = ev.target.elements;
    state.journalFilters = { method: f.method.value, path: f.path.value.trim(), status: f.status.value.trim() };
    startJournal();
  });
  $('journal-filters').addEventListener('reset', () => {
    state.journalFilters = {};
    setTimeout(startJournal, 0);
  });
  $('fault-form').addEventListener('submit', addFault);
  $('faults-clear').addEventListener('click', clearFaults);
  $('live').addEventListener('change', () => { if ($('live').checked) refresh(); });
  refresh().then(() => startJournal());
  loop();
}

document.addEventListener('DOMContentLoaded', init);

// trove review serve: the shared review queue. Every piece of user text reaches the page
// through textContent; nothing is ever written as HTML.
'use strict';

const state = {
  me: null, posts: [], index: -1, current: null, seq: 0, undo: [], mode: null,
  confirm: false, refused: false, claims: new Map(), next: null, busy: 0,
};

const $ = (id) => document.getElementById(id);

function el(tag, props, children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null) continue;
      if (key === 'text') node.textContent = value;
      else if (key === 'className') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
  }
  for (const child of children || []) if (child) node.append(child);
  return node;
}

async function api(path, body) {
  // Writes in flight: a poll does not renew a claim a decision is ending.
  if (body !== undefined) state.busy += 1;
  try { return await request(path, body); } finally { if (body !== undefined) state.busy -= 1; }
}

async function request(path, body) {
  const options = { credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    options.method = 'POST';
    options.headers['Content-Type'] = 'application/json';
    options.headers['X-CSRF-Token'] = state.me ? state.me.csrf : '';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  return { status: response.status, data };
}

function say(text, kind, action) {
  const box = $('message');
  box.replaceChildren(text);
  box.className = 'message' + (kind ? ' ' + kind : '');
  if (action) box.append(el('button', { type: 'button', text: action.label, onclick: action.run }));
  box.hidden = !text;
}

function filters() {
  const params = new URLSearchParams();
  params.set('status', $('f-status').value);
  for (const [name, id] of [['signal', 'f-signal'], ['user', 'f-user'], ['area', 'f-area'], ['q', 'f-q']]) {
    const value = $(id).value.trim();
    if (value) params.set(name, value);
  }
  return params;
}

function takenBy(post) {
  const holder = state.claims.get(post.id);
  return holder && holder !== state.me.moderator ? holder : null;
}

function hiddenStatus(status) {
  const wanted = $('f-status').value;
  if (wanted === 'all') return false;
  if (wanted === 'open') return status !== 'pending' && status !== 'flagged';
  return status !== wanted;
}

async function loadQueue(keep) {
  const { status, data } = await api('/api/queue?' + filters().toString());
  if (status !== 200) { say(data.message || 'the queue could not be read', 'error'); return; }
  state.posts = data.posts;
  state.next = data.next;
  for (const post of state.posts) if (post.claimedBy) state.claims.set(post.id, post.claimedBy);
  $('count').textContent = data.total + (data.total === 1 ? ' post' : ' posts');
  renderList();
  const again = keep ? state.posts.findIndex((p) => p.id === keep) : -1;
  if (again >= 0) await open(again); else await openNext(-1);
}

function renderList() {
  const list = $('list');
  list.replaceChildren();
  state.posts.forEach((post, index) => {
    const holder = takenBy(post);
    const item = el('li', {
      'data-id': post.id, title: post.id,
      className: (index === state.index ? 'current ' : '') + (holder ? 'taken ' : '') +
        (post.decided ? 'decided' : ''),
      onclick: () => open(index),
    }, [post.id + ' ', post.description ? '· ' + post.description.slice(0, 60) : '']);
    if (holder) item.append(el('span', { className: 'tag', text: 'taken by ' + holder }));
    else if (post.decided) item.append(el('span', { className: 'tag', text: post.status }));
    else if (post.status !== 'pending') item.append(el('span', { className: 'tag', text: post.status }));
    list.append(item);
  });
}

// The next page of the queue after the last post listed; false when there is none.
async function loadMore() {
  if (!state.next) return false;
  const params = filters();
  params.set('after', state.next);
  const { status, data } = await api('/api/queue?' + params.toString());
  if (status !== 200) return false;
  const known = new Set(state.posts.map((p) => p.id));
  state.posts.push(...data.posts.filter((p) => !known.has(p.id)));
  state.next = data.next;
  return data.posts.length > 0;
}

async function openNext(from) {
  for (let index = from + 1; ; index++) {
    if (index >= state.posts.length && !(await loadMore())) break;
    const post = state.posts[index];
    // A post someone else claimed since the last poll is skipped too.
    if (!post.decided && !takenBy(post) && await open(index, true)) return;
  }
  state.index = -1;
  state.current = null;
  renderList();
  $('card').replaceChildren(el('p', { className: 'empty', text: 'Nothing left to review here.' }));
  document.body.dataset.ready = 'true';
}

// Opens (and claims) a post; when `onlyFree`, a post someone else holds is left alone.
async function open(index, onlyFree) {
  const post = state.posts[index];
  if (!post) return false;
  if (state.current && state.current.id !== post.id) {
    await api('/api/release', { id: state.current.id });
  }
  state.index = index;
  state.confirm = false;
  state.refused = false;
  const claim = await api('/api/claim', { id: post.id });
  if (claim.status === 409) {
    state.claims.set(post.id, claim.data.by);
    if (onlyFree) { renderList(); return false; }
  } else if (claim.status === 200) {
    state.claims.set(post.id, state.me.moderator);
  }
  const { status, data } = await api('/api/post?id=' + encodeURIComponent(post.id));
  if (status !== 200) { say(data.message || 'the post could not be read', 'error'); return false; }
  state.current = data;
  Object.assign(post, { version: data.version, status: data.status });
  renderList();
  renderCard(data);
  const item = $('list').children[index];
  if (item) item.scrollIntoView({ block: 'nearest' });
  document.body.dataset.ready = 'true';
  return true;
}

function photoSize() {
  const longest = Math.max(window.innerWidth, window.innerHeight) * (window.devicePixelRatio || 1);
  return [160, 480, 960, 1600].find((size) => size >= longest * 0.8) || 1600;
}

function renderCard(post) {
  const card = $('card');
  const holder = post.claimedBy && post.claimedBy !== state.me.moderator ? post.claimedBy : null;
  const photo = post.photo
    ? el('img', {
      src: '/api/photo?id=' + encodeURIComponent(post.id) + '&size=' + photoSize(),
      alt: 'photo of the post',
    })
    : el('p', { className: 'empty', text: 'no photo' });
  const rows = el('dl');
  const row = (name, value) => { if (value !== null && value !== undefined && value !== '') rows.append(el('dt', { text: name }), el('dd', { text: String(value) })); };
  const user = post.user
    ? el('button', { type: 'button', className: 'user-link', text: post.user, onclick: () => userPanel(post.user) })
    : null;
  if (user) rows.append(el('dt', { text: 'user' }), el('dd', null, [user]));
  row('date', post.date);
  if (post.lat !== null) row('position', post.lat.toFixed(6) + ', ' + post.lon.toFixed(6));
  if (post.exifLat !== null) row('photo taken', post.exifLat.toFixed(6) + ', ' + post.exifLon.toFixed(6));
  row('EXIF time', post.exifTime);
  row('version', post.version);
  row('note', post.note);
  const signals = el('ul', { className: 'signals' });
  for (const signal of post.signalDetails) {
    signals.append(el('li', null, [el('span', { className: 'name', text: signal.name }), ' ' + signal.detail]));
  }
  const related = el('div', { className: 'related' });
  for (const other of post.related) {
    related.append(el('button', {
      type: 'button', 'data-related': other.id, title: 'open post ' + other.id,
      onclick: () => openByID(other.id),
    }, [
      other.photo ? el('img', { src: '/api/photo?id=' + encodeURIComponent(other.id) + '&size=160', alt: '' }) : null,
      other.id,
    ]));
  }
  const history = el('ol', { className: 'history' });
  for (const entry of post.history) {
    history.append(el('li', {
      text: entry.at + ' ' + entry.moderator + ': ' + entry.from + ' → ' + entry.to +
        (entry.reason ? ' (' + entry.reason + ')' : '') + (entry.note ? ' — ' + entry.note : ''),
    }));
  }
  const map = el('div', { className: 'map' });
  if (post.lat !== null) loadMap(post.id, map);
  const note = el('textarea', { id: 'note', rows: '2', placeholder: 'note for the decision (n)', maxlength: '1000' });
  note.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === 'Escape') { event.preventDefault(); note.blur(); }
  });
  const actions = el('div', { className: 'actions' }, [
    el('button', { type: 'button', text: 'approve (a)', onclick: () => decide('approve') }),
    el('button', { type: 'button', text: 'reject (r)', onclick: () => showReasons() }),
    el('button', { type: 'button', text: 'flag (f)', onclick: () => decide('flag') }),
    el('button', { type: 'button', text: 'skip (s)', onclick: () => skip() }),
    el('button', { type: 'button', text: 'undo (u)', onclick: () => undo() }),
  ]);
  card.replaceChildren(
    el('div', { className: 'photo' }, [photo]),
    el('div', { className: 'info' }, [
      el('h2', null, [el('span', { className: 'id', text: post.id }), el('span', { className: 'status', text: post.status })]),
      holder ? el('p', { className: 'taken', text: 'taken by ' + holder + ': they have it open' }) : null,
      rows,
      el('p', { className: 'description', text: post.description || '' }),
      signals, related, note, actions,
      post.history.length ? el('h3', { text: 'history' }) : null, history,
    ]),
    map,
  );
  card.dataset.id = post.id;
}

async function loadMap(id, box) {
  const response = await fetch('/api/map.svg?id=' + encodeURIComponent(id), { credentials: 'same-origin' });
  if (!response.ok) return;
  const text = await response.text();
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = parsed.documentElement;
  if (svg.nodeName !== 'svg') return;
  for (const script of svg.querySelectorAll('script, foreignObject')) script.remove();
  if (state.current && state.current.id === id) box.replaceChildren(document.importNode(svg, true));
}

async function openByID(id) {
  let index = state.posts.findIndex((p) => p.id === id);
  if (index < 0) {
    const { status, data } = await api('/api/post?id=' + encodeURIComponent(id));
    if (status !== 200) { say('no post ' + id, 'error'); return; }
    state.posts.splice(state.index + 1, 0, {
      id: data.id, user: data.user, description: data.description, status: data.status, version: data.version,
    });
    index = state.index + 1;
  }
  await open(index);
}

function noteText() {
  const note = $('note');
  return note ? note.value.trim() : '';
}

async function decide(action, reason) {
  const post = state.current;
  if (!post) return;
  const body = { id: post.id, version: post.version, seen: post.status, action, note: noteText() || undefined };
  if (reason) body.reason = reason;
  if (state.confirm && action === 'approve') body.confirmed = true;
  const { status, data } = await api('/api/decide', body);
  if (status === 200) {
    const item = state.posts[state.index];
    state.undo.push(post.id);
    item.status = data.status;
    item.decided = hiddenStatus(data.status);
    state.claims.delete(post.id);
    say((action === 'reject' ? 'rejected (' + reason + ')' : data.status) + ': ' + post.id);
    state.current = null;
    await openNext(state.index);
    return;
  }
  if (data.error === 'confirm') {
    state.confirm = true;
    say(data.message + ' Press y to approve, any other key to cancel.', 'error');
    state.mode = 'confirm';
    return;
  }
  state.refused = true;
  say(data.message || 'refused', 'error', { label: 'reload (Enter)', run: reloadCurrent });
}

async function reloadCurrent() {
  say('');
  if (state.index >= 0) await open(state.index);
}

async function skip() {
  const post = state.current;
  if (!post) return;
  await api('/api/release', { id: post.id });
  state.claims.delete(post.id);
  state.current = null;
  say('skipped ' + post.id);
  await openNext(state.index);
}

async function undo() {
  const id = state.undo.pop();
  if (!id) { say('nothing to undo', 'error'); return; }
  const { status, data } = await api('/api/undo', { id });
  if (status !== 200) { say((data.message || 'not undone') + ' (' + id + ')', 'error'); return; }
  say('undone: ' + id + ' is ' + data.status + ' again');
  let index = state.posts.findIndex((p) => p.id === id);
  if (index < 0) { await openByID(id); return; }
  state.posts[index].status = data.status;
  state.posts[index].decided = false;
  await open(index);
}

function showReasons() {
  if (!state.current) return;
  state.mode = 'reason';
  $('reasons').hidden = false;
}

function closeOverlays() {
  state.mode = null;
  $('reasons').hidden = true;
  $('help').hidden = true;
  $('user-panel').hidden = true;
}

async function userPanel(user) {
  const { status, data } = await api('/api/user?user=' + encodeURIComponent(user));
  if (status !== 200) return;
  $('user-name').textContent = user;
  const posts = $('user-posts');
  posts.replaceChildren();
  for (const post of data.posts) {
    posts.append(el('li', { 'data-id': post.id }, [
      el('button', { type: 'button', text: post.id, onclick: () => { closeOverlays(); openByID(post.id); } }),
      ' ' + post.status + ' ' + (post.date || '') + ' ' + (post.description || '').slice(0, 80),
    ]));
  }
  const decisions = $('user-decisions');
  decisions.replaceChildren();
  for (const entry of data.decisions) {
    decisions.append(el('li', {
      text: entry.at + ' ' + entry.id + ': ' + entry.to + ' by ' + entry.moderator +
        (entry.reason ? ' (' + entry.reason + ')' : '') + (entry.note ? ' — ' + entry.note : ''),
    }));
  }
  const pending = data.posts.filter((p) => p.status === 'pending');
  const button = $('user-reject');
  button.textContent = 'reject all ' + pending.length + ' pending from this user';
  button.disabled = pending.length === 0;
  button.onclick = async () => {
    const reason = $('user-reason').value;
    if (!window.confirm('Reject all ' + pending.length + ' pending posts of ' + user + ' as ' + reason + '?')) return;
    const result = await api('/api/reject-user', {
      user, reason, note: noteText() || undefined, posts: pending.map((p) => ({ id: p.id, version: p.version })),
    });
    say('rejected ' + (result.data.rejected || 0) + ' posts of ' + user +
      (result.data.refused ? ', ' + result.data.refused + ' refused (changed or decided)' : ''));
    closeOverlays();
    await loadQueue();
  };
  state.mode = 'panel';
  $('user-panel').hidden = false;
  button.focus();
}

// `review serve --follow`: whether the queue follows the live database, and since when.
function showFollow(follow) {
  const line = $('follow-status');
  if (!line || !follow) return;
  const time = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');
  const texts = {
    following: 'following the database since ' + time(follow.since),
    connecting: 'connecting to the database…',
    reconnecting: 'reconnecting to the database…',
    stopped: 'not following the database',
  };
  let text = texts[follow.state] || follow.state;
  if (follow.stored) text += ' · ' + follow.stored + ' posts in since start';
  line.textContent = text;
  line.title = follow.url + (follow.message ? ': ' + follow.message : '');
  line.dataset.state = follow.state;
  line.hidden = false;
}

async function poll() {
  try {
    const shown = state.current;
    const { status, data } = await api('/api/changes?since=' + state.seq);
    $('live').classList.toggle('down', status !== 200);
    if (status !== 200) return;
    state.seq = data.seq;
    showFollow(data.follow);
    const claims = new Map(data.claims.map((c) => [c.id, c.moderator]));
    let changed = false;
    for (const id of new Set([...claims.keys(), ...state.claims.keys()])) {
      if (claims.get(id) !== state.claims.get(id)) changed = true;
    }
    state.claims = claims;
    // The post on screen stays claimed while it is open: a claim that ran out is renewed.
    if (state.current && state.current === shown && !state.busy && !claims.has(shown.id) &&
        !data.decisions.some((d) => d.id === shown.id)) {
      const again = await api('/api/claim', { id: state.current.id });
      if (again.status === 200) state.claims.set(state.current.id, state.me.moderator);
      else if (again.status === 409) {
        state.claims.set(state.current.id, again.data.by);
        say(state.current.id + ' is taken by ' + again.data.by + ' now', 'error');
      }
    }
    for (const decision of data.decisions) {
      const post = state.posts.find((p) => p.id === decision.id);
      if (!post) continue;
      post.status = decision.status;
      post.version = decision.version;
      post.decided = hiddenStatus(decision.status);
      changed = true;
      if (state.current && state.current.id === decision.id && decision.moderator !== state.me.moderator) {
        say(decision.id + ' was just decided by ' + decision.moderator + ' (' + decision.to + ')', 'error',
          { label: 'reload (Enter)', run: reloadCurrent });
        state.refused = true;
      }
    }
    if (changed) renderList();
  } catch (e) {
    $('live').classList.add('down');
  }
}

document.addEventListener('keydown', async (event) => {
  const target = event.target;
  if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (state.mode === 'reason') {
    event.preventDefault();
    const number = Number(key);
    if (key === 'Escape') { closeOverlays(); return; }
    if (number >= 1 && number <= state.me.reasons.length) {
      closeOverlays();
      await decide('reject', state.me.reasons[number - 1]);
    }
    return;
  }
  if (state.mode === 'confirm') {
    event.preventDefault();
    state.mode = null;
    if (key === 'y') await decide('approve'); else { state.confirm = false; say('not approved'); }
    return;
  }
  if (key === 'Escape') { closeOverlays(); return; }
  if (key === 'Enter' && target && target.tagName === 'BUTTON') {
    event.preventDefault();
    target.click();
    return;
  }
  if (state.mode === 'panel' && key !== '?') return;
  const actions = {
    a: () => decide('approve'), r: () => showReasons(), f: () => decide('flag'), s: () => skip(),
    u: () => undo(), j: () => openNext(state.index),
    k: () => { if (state.index > 0) open(state.index - 1); },
    p: () => { if (state.current && state.current.user) userPanel(state.current.user); },
    n: () => { const note = $('note'); if (note) note.focus(); },
    '/': () => $('f-q').focus(),
    '?': () => { const help = $('help'); help.hidden = !help.hidden; state.mode = help.hidden ? null : 'help'; },
    Enter: () => { if (state.refused) reloadCurrent(); },
  };
  const run = actions[key];
  if (run) { event.preventDefault(); await run(); }
});

async function start() {
  const { status, data } = await api('/api/me');
  if (status !== 200) { say('not signed in: open your sign-in link', 'error'); return; }
  state.me = data;
  state.seq = data.seq;
  showFollow(data.follow);
  $('who').textContent = data.moderator;
  const signal = $('f-signal');
  for (const name of data.signals) signal.append(el('option', { value: name, text: name }));
  if (data.area) $('f-area').append(el('option', { value: 'review', text: 'in the review area' }));
  const reasons = $('reason-list');
  const select = $('user-reason');
  data.reasons.forEach((reason, index) => {
    reasons.append(el('li', { text: (index + 1) + ' ' + reason }));
    select.append(el('option', { value: reason, text: reason }));
  });
  for (const id of ['f-status', 'f-signal', 'f-area']) $(id).addEventListener('change', () => loadQueue());
  for (const id of ['f-user', 'f-q']) {
    $(id).addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); event.target.blur(); loadQueue(); }
    });
  }
  $('filters').addEventListener('submit', (event) => { event.preventDefault(); loadQueue(); });
  $('help-button').addEventListener('click', () => { $('help').hidden = !$('help').hidden; });
  $('user-close').addEventListener('click', closeOverlays);
  await loadQueue();
  setInterval(poll, 1000);
}

start();

// trove review serve: the shared review queue. Every piece of user text reaches the page
// through `userText`: text nodes only, never HTML, with control, bidi and invisible
// characters shown escaped as the terminal shows them (\x1B, \u202E), inside a <bdi> so
// that it cannot reorder the text around it. Every action has a button (pointer and
// touch) and a key.
'use strict';

const state = {
  me: null, posts: [], index: -1, current: null, seq: 0, imports: 0, undo: [],
  confirm: false, refused: false, claims: new Map(), next: null, busy: 0, view: 0,
  // When the moderator last did something here; the post whose claim a lead released;
  // the post whose claim ended for want of activity.
  active: Date.now(), released: null, idleFor: null,
  outbox: [], opener: null, panelOpener: null, topic: null, confirmText: '', sending: new Set(),
};

const $ = (id) => document.getElementById(id);

function el(tag, props, children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = value;
      else if (key === 'className') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : value);
    }
  }
  append(node, children);
  return node;
}

// Strings given here are the page's own words; user text comes as `userText` nodes.
function append(node, children) {
  for (const child of [].concat(children || [])) {
    if (Array.isArray(child)) append(node, child);
    else if (child !== null && child !== undefined && child !== false && child !== '') node.append(child);
  }
}

// MARK: - User text

// What the terminal escapes (C0 but line feed and tab, DEL, C1, the bidi controls
// U+202A–202E, U+2066–2069, U+200E, U+200F, U+061C) and whatever else draws nothing:
// format characters (zero-width space and joiners, word joiner, BOM, soft hyphen, tags…),
// line and paragraph separators, the grapheme joiner and the blank fillers.
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u3164\uFFA0]/u;
// Scripts whose words are spelled with the zero-width (non-)joiner.
const JOINING = /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;
// Emoji joined into one picture by U+200D (a family, a skin tone, a red heart).
const PICTURE = /[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F]/u;

// Whether the invisible character at `i` is part of what the text shows: a joiner inside
// an emoji sequence or a word of a joining script. Anywhere else it could hide a word.
function spelled(chars, i) {
  const before = chars[i - 1] || '';
  const after = chars[i + 1] || '';
  if (chars[i] === '\u200D' && PICTURE.test(before) && PICTURE.test(after)) return true;
  return (chars[i] === '\u200D' || chars[i] === '\u200C') && JOINING.test(before) && JOINING.test(after);
}

// `\x1B` below U+0100, `\u202E` above, as TerminalText writes them.
function escaped(char) {
  const value = char.codePointAt(0);
  const hex = value.toString(16).toUpperCase();
  return value < 0x100 ? '\\x' + hex.padStart(2, '0') : '\\u' + hex.padStart(4, '0');
}

// `text` as runs of plain text and escapes: [[plain, false], ['\u202E', true], …].
function pieces(text) {
  text = String(text);
  if (!UNSEEN.test(text)) return [[text, false]];
  const chars = Array.from(text);
  const result = [];
  let run = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i];
    if (char === '\u{1F3F4}') {
      // A subdivision flag: the black flag, tag letters, the cancel tag.
      let end = i + 1;
      while (end < chars.length && chars[end] >= '\u{E0020}' && chars[end] <= '\u{E007E}') end++;
      if (end > i + 1 && chars[end] === '\u{E007F}') {
        run += chars.slice(i, end + 1).join('');
        i = end;
        continue;
      }
    }
    if (char !== '\n' && char !== '\t' && UNSEEN.test(char) && !spelled(chars, i)) {
      if (run) result.push([run, false]);
      run = '';
      result.push([escaped(char), true]);
    } else {
      run += char;
    }
  }
  if (run) result.push([run, false]);
  return result;
}

// User text as a string with its unseen characters escaped (for attributes and options).
function shownText(text) {
  return pieces(text).map(([part]) => part).join('');
}

// User text as an isolated element: a <bdi> (or `tag`) holding its text, each escape
// marked so that it stands out from the text around it.
function userText(text, props, tag) {
  return el(tag || 'bdi', props, pieces(text).map(([part, escape]) =>
    escape ? el('span', { className: 'escape', text: part }) : document.createTextNode(part)));
}

// `1 post`, `2 posts`.
function count(number, noun) {
  return number + ' ' + noun + (number === 1 ? '' : 's');
}

// The first `count` characters of `text`, whole characters only.
function cut(text, count) {
  const chars = Array.from(String(text || ''));
  return chars.length > count ? chars.slice(0, count - 1).join('') + '…' : chars.join('');
}

// MARK: - Server

// Every request ends: a write that has no answer within 10 s (a read within 15 s) is
// given up, and the page says the server could not be reached (status 0).
async function request(path, body) {
  const options = { credentials: 'same-origin', headers: {}, cache: 'no-store' };
  if (body !== undefined) {
    options.method = 'POST';
    options.headers['Content-Type'] = 'application/json';
    options.headers['X-CSRF-Token'] = state.me ? state.me.csrf : '';
    options.body = JSON.stringify(body);
  }
  const abort = new AbortController();
  options.signal = abort.signal;
  const timer = setTimeout(() => abort.abort(), body === undefined ? 15000 : 10000);
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    clearTimeout(timer);
    connection(false);
    const message = abort.signal.aborted ? 'the server did not answer in time' : 'the server could not be reached';
    return { status: 0, data: { error: 'unreached', message } };
  }
  let data = {};
  try { data = await response.json(); } catch (error) { data = {}; }
  clearTimeout(timer);
  connection(true, response.status === 401);
  return { status: response.status, data };
}

async function api(path, body) {
  // Writes in flight: a poll does not renew a claim a decision is ending.
  if (body !== undefined) state.busy += 1;
  try { return await request(path, body); } finally { if (body !== undefined) state.busy -= 1; }
}

// What went wrong, in words, from an answer that was not 200.
function problem(answer, fallback) {
  if (answer.status === 0) return answer.data.message;
  if (answer.status === 401) return 'you are signed out: ask your lead for a new sign-in link';
  return answer.data.message || fallback + ' (' + answer.status + ')';
}

// MARK: - Messages

// A message names what it is about (`topic`) and goes when that is over: 'queue' when the
// queue loads, 'post' when another post opens, 'link' when the server answers again.
function say(parts, kind, options) {
  options = options || {};
  const box = $('message');
  box.replaceChildren();
  append(box, parts);
  state.topic = options.topic || null;
  box.className = 'message' + (kind ? ' ' + kind : '');
  if (options.action) {
    box.append(el('button', { type: 'button', text: options.action.label, onclick: options.action.run }));
  }
  box.hidden = !box.textContent;
}

function clearMessage(topic) {
  if (state.topic === topic) say('');
}

// MARK: - Connection

// Whether the server answers, told in words on the badge: live, reconnecting… (for the
// first ten seconds without an answer), offline since HH:MM, signed out.
const link = { down: null, signedOut: false };

function connection(reached, signedOut) {
  if (signedOut && !link.signedOut) {
    say('you are signed out: ask your lead for a new sign-in link', 'error', { topic: 'signed-out' });
  }
  link.signedOut = !!signedOut;
  if (reached) {
    if (link.down !== null) {
      link.down = null;
      clearMessage('link');
      renderOutbox();
    }
  } else if (link.down === null) {
    link.down = Date.now();
  }
  showConnection();
}

function clock(time) {
  const date = new Date(time);
  return String(date.getHours()).padStart(2, '0') + ':' + String(date.getMinutes()).padStart(2, '0');
}

function showConnection() {
  let text = 'live';
  let kind = 'live';
  if (link.signedOut) {
    text = 'signed out';
    kind = 'down';
  } else if (link.down !== null) {
    const offline = Date.now() - link.down >= 10000;
    text = offline ? 'offline since ' + clock(link.down) : 'reconnecting…';
    kind = offline ? 'down' : 'trying';
  }
  const badge = $('live');
  if (badge.textContent !== text) badge.textContent = text;
  badge.className = 'live ' + kind;
  badge.dataset.state = kind;
}

// MARK: - Queue

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

// A filter changed: what was said about the last queue or post is over.
async function filtersChanged() {
  if (state.topic !== 'link') say('');
  showFilterCount();
  await loadQueue();
}

async function loadQueue(keep) {
  const answer = await api('/api/queue?' + filters().toString());
  if (answer.status !== 200) {
    say(problem(answer, 'the queue could not be read'), 'error', { topic: answer.status === 0 ? 'link' : 'queue' });
    return;
  }
  clearMessage('queue');
  const data = answer.data;
  state.posts = data.posts;
  state.next = data.next;
  for (const post of state.posts) if (post.claimedBy) state.claims.set(post.id, post.claimedBy);
  $('count').textContent = count(data.total, 'post');
  renderList();
  const again = keep ? state.posts.findIndex((p) => p.id === keep) : -1;
  if (again >= 0) await open(again); else await openNext(-1);
}

function renderList() {
  const list = $('list');
  list.replaceChildren();
  state.posts.forEach((post, index) => {
    const holder = takenBy(post);
    const unsent = state.outbox.some((entry) => entry.id === post.id);
    let tag = null;
    if (holder) tag = ['taken by ', userText(holder)];
    else if (unsent) tag = 'not sent';
    else if (post.decided || post.status !== 'pending') tag = post.status;
    const item = el('li', {
      'data-id': post.id,
      className: [index === state.index && 'current', holder && 'taken', post.decided && 'decided',
        unsent && 'unsent'].filter(Boolean).join(' '),
    }, [el('button', {
      type: 'button', className: 'item', 'aria-current': index === state.index ? 'true' : null,
      onclick: () => open(index),
    }, [
      userText(post.id, { className: 'id' }),
      post.description ? [' · ', userText(cut(post.description, 80))] : null,
      tag ? el('span', { className: 'tag' }, [tag]) : null,
    ])]);
    list.append(item);
  });
}

// New posts reach the open page: the queue is read again with the same filters; the
// post on view stays on view (where it was, when it no longer matches), and a page with
// nothing left opens the first new one. False when it could not be done now (a post is
// being opened, the server did not answer): the next poll tries again.
async function refreshQueue() {
  if (state.busy) return false;
  const view = state.view;
  const answer = await api('/api/queue?' + filters().toString());
  if (answer.status !== 200 || view !== state.view || state.busy) return false;
  const data = answer.data;
  const shown = state.current;
  const current = shown ? state.posts.find((p) => p.id === shown.id) ||
    { id: shown.id, user: shown.user, description: shown.description, status: shown.status, version: shown.version } : null;
  const posts = data.posts;
  if (current && !posts.some((p) => p.id === current.id)) {
    posts.splice(Math.min(Math.max(state.index, 0), posts.length), 0, current);
  }
  for (const post of posts) {
    const before = state.posts.find((p) => p.id === post.id);
    if (before && before.decided) post.decided = before.decided;
    if (post.claimedBy) state.claims.set(post.id, post.claimedBy);
  }
  state.posts = posts;
  state.next = data.next;
  state.index = current ? posts.indexOf(current) : -1;
  $('count').textContent = count(data.total, 'post');
  renderList();
  if (!state.current) await openNext(-1);
  return true;
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
    if (post.decided || takenBy(post)) continue;
    const opened = await open(index, true);
    if (opened || opened === null) return;
  }
  // Nothing left: the post that was on view is no longer held.
  if (state.current) await api('/api/release', { id: state.current.id });
  state.index = -1;
  state.current = null;
  state.view += 1;
  renderList();
  $('card').replaceChildren(el('p', { className: 'empty', text: 'Nothing left to review here.' }));
  delete $('card').dataset.id;
  renderActions();
  renderOutbox();
  document.body.dataset.ready = 'true';
}

// Opens (and claims) a post; when `onlyFree`, a post someone else holds is left alone
// (false). Null when the server could not be reached: the card stays as it was.
async function open(index, onlyFree, seen) {
  const post = state.posts[index];
  if (!post) return false;
  state.view += 1;
  const view = state.view;
  state.busy += 1;
  try {
    if (state.current && state.current.id !== post.id) {
      await api('/api/release', { id: state.current.id });
    }
    const claim = await api('/api/claim', { id: post.id });
    if (claim.status === 0) {
      say(['cannot open ', userText(post.id), ': ', claim.data.message], 'error', { topic: 'link' });
      return null;
    }
    if (claim.status === 409) {
      state.claims.set(post.id, claim.data.by);
      if (onlyFree) { renderList(); return false; }
    } else if (claim.status === 200) {
      state.claims.set(post.id, state.me.moderator);
      state.released = null;
      state.idleFor = null;
    }
    const query = '/api/post?id=' + encodeURIComponent(post.id) + (seen ? '&seen=' + encodeURIComponent(seen) : '');
    const answer = await api(query);
    if (view !== state.view) {
      // Another post was opened meanwhile: this one is not held any longer.
      if (state.posts[state.index] !== post && (!state.current || state.current.id !== post.id)) {
        api('/api/release', { id: post.id });
      }
      return null;
    }
    if (answer.status !== 200) {
      say(['cannot open ', userText(post.id), ': ', problem(answer, 'the post could not be read')], 'error',
        { topic: answer.status === 0 ? 'link' : 'post' });
      return answer.status === 0 ? null : false;
    }
    const data = answer.data;
    state.index = index;
    state.confirm = false;
    state.refused = false;
    state.current = data;
    clearMessage('post');
    // The list says what the card says (an edit since the list was read shows in both).
    Object.assign(post, { version: data.version, status: data.status, description: data.description, user: data.user });
    renderList();
    renderCard(data);
    const item = $('list').children[index];
    if (item) item.scrollIntoView({ block: 'nearest' });
    document.body.dataset.ready = 'true';
    return true;
  } finally {
    state.busy -= 1;
  }
}

// A post not in the list goes in after the one on view, or in its place (`before`: a post
// undone, back in the queue, comes before the one it interrupts, which is next after it).
async function openByID(id, before) {
  let index = state.posts.findIndex((p) => p.id === id);
  if (index < 0) {
    const answer = await api('/api/post?id=' + encodeURIComponent(id));
    if (answer.status !== 200) { say(['no post ', userText(id)], 'error', { topic: 'post' }); return; }
    const data = answer.data;
    index = before ? Math.max(state.index, 0) : state.index + 1;
    state.posts.splice(index, 0, {
      id: data.id, user: data.user, description: data.description, status: data.status, version: data.version,
    });
  }
  await open(index);
}

// MARK: - The card

function photoSize() {
  const longest = Math.max(window.innerWidth, window.innerHeight) * (window.devicePixelRatio || 1);
  return [160, 480, 960, 1600].find((size) => size >= longest * 0.8) || 1600;
}

// A position as a link to OpenStreetMap, as the sheet and `review show` give it.
function place(lat, lon, url, extra) {
  const text = lat.toFixed(6) + ', ' + lon.toFixed(6);
  if (typeof url !== 'string' || !url.startsWith('https://www.openstreetmap.org/')) return text + (extra || '');
  return [el('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, [
    text, el('span', { className: 'sr', text: ' (OpenStreetMap, opens in a new tab)' }),
  ]), extra || null];
}

// What an entry of the trail was, when it was not a moderator's decision: an undo, or what
// the post's user or the import did.
function kindWords(entry) {
  const words = { undo: 'undo: ', withdrawal: 'withdrawn: ', restoration: 'back: ', reopening: 'reopened after an edit: ' };
  return words[entry.kind] || '';
}

// MARK: - Redaction

// Boxes to hide in what is published, as fractions of the upright photo: drawn on the photo
// by pointer or touch, or added by numbers (percent) from the keyboard.
function fraction(value) {
  return Math.round(Math.min(1, Math.max(0, value)) * 10000) / 10000;
}

function boxText(box) {
  return [box.x, box.y, box.w, box.h].map(fraction).join(',');
}

// Places a box's element (through the CSSOM: the page's policy allows no style attribute).
function placeBox(node, box) {
  node.style.left = box.x * 100 + '%';
  node.style.top = box.y * 100 + '%';
  node.style.width = box.w * 100 + '%';
  node.style.height = box.h * 100 + '%';
  return node;
}

function boxes(number) {
  return number + (number === 1 ? ' box' : ' boxes');
}

function renderBoxes() {
  const layer = document.querySelector('#card .redaction-layer');
  const list = $('redaction-list');
  if (!layer || !list) return;
  layer.replaceChildren();
  list.replaceChildren();
  state.boxes.forEach((box, index) => {
    layer.append(placeBox(el('div', { className: 'redaction-box' }), box));
    const percent = (value) => Math.round(value * 1000) / 10 + '%';
    list.append(el('li', null, [
      'box ' + (index + 1) + ': ' + percent(box.x) + ' from the left, ' + percent(box.y) + ' from the top, '
        + percent(box.w) + ' wide, ' + percent(box.h) + ' high ',
      el('button', {
        type: 'button', className: 'remove-box', 'aria-label': 'remove box ' + (index + 1),
        onclick: () => { state.boxes.splice(index, 1); renderBoxes(); $('redaction-draw').focus(); },
      }, ['remove']),
    ]));
  });
  const send = $('approve-redacted');
  send.disabled = state.boxes.length === 0 || !state.current || state.sending.has(state.current.id);
  $('redaction-count').textContent = state.boxes.length
    ? boxes(state.boxes.length) + ' to blur' : 'no box yet';
}

function addBox(box) {
  const x = fraction(box.x);
  const y = fraction(box.y);
  const w = fraction(Math.min(box.w, 1 - x));
  const h = fraction(Math.min(box.h, 1 - y));
  if (w <= 0 || h <= 0 || state.boxes.length >= 20) return false;
  state.boxes.push({ x, y, w, h });
  renderBoxes();
  return true;
}

function toggleDrawing(on) {
  const photo = document.querySelector('#card .photo');
  const button = $('redaction-draw');
  if (!photo || !button) return;
  state.drawing = on === undefined ? !state.drawing : on;
  photo.classList.toggle('drawing', state.drawing);
  button.setAttribute('aria-pressed', String(state.drawing));
}

// Pointer events serve mouse, pen and touch alike; while drawing, the photo takes the
// touch (no scrolling) so a finger draws the box.
function wireDrawing(frame) {
  let start = null;
  let ghost = null;
  const at = (event) => {
    const rect = frame.getBoundingClientRect();
    return { x: fraction((event.clientX - rect.left) / rect.width), y: fraction((event.clientY - rect.top) / rect.height) };
  };
  const area = (a, b) => ({ x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(a.x - b.x), h: Math.abs(a.y - b.y) });
  frame.addEventListener('pointerdown', (event) => {
    if (!state.drawing) return;
    event.preventDefault();
    frame.setPointerCapture(event.pointerId);
    start = at(event);
    ghost = el('div', { className: 'redaction-box drawing-box' });
    frame.querySelector('.redaction-layer').append(ghost);
  });
  frame.addEventListener('pointermove', (event) => {
    if (!start || !ghost) return;
    const box = area(start, at(event));
    placeBox(ghost, box);
  });
  const end = (event) => {
    if (!start) return;
    const box = area(start, at(event));
    start = null;
    if (ghost) ghost.remove();
    ghost = null;
    if (box.w >= 0.01 && box.h >= 0.01) addBox(box);
  };
  frame.addEventListener('pointerup', end);
  frame.addEventListener('pointercancel', () => { start = null; if (ghost) ghost.remove(); ghost = null; });
}

function addBoxByNumbers(event) {
  event.preventDefault();
  const value = (id) => Number($(id).value) / 100;
  const box = { x: value('box-x'), y: value('box-y'), w: value('box-w'), h: value('box-h') };
  const error = $('box-error');
  const ok = [box.x, box.y, box.w, box.h].every((v) => Number.isFinite(v) && v >= 0 && v <= 1)
    && box.w > 0 && box.h > 0 && addBox(box);
  error.hidden = ok;
  if (ok) for (const id of ['box-x', 'box-y', 'box-w', 'box-h']) $(id).value = '';
}

function redactionControls(post) {
  if (!post.photo || post.status === 'withdrawn') return null;
  const number = (id, label) => el('label', { for: id }, [label + ' ', el('input', {
    id, type: 'number', min: '0', max: '100', step: '0.1', inputmode: 'decimal', required: 'required',
  })]);
  const form = el('form', { id: 'box-form', className: 'box-form', 'aria-describedby': 'box-error' }, [
    number('box-x', 'left %'), number('box-y', 'top %'), number('box-w', 'width %'), number('box-h', 'height %'),
    el('button', { type: 'submit', id: 'box-add' }, ['add box']),
  ]);
  form.addEventListener('submit', addBoxByNumbers);
  return el('section', { className: 'redaction', 'aria-labelledby': 'redaction-title' }, [
    el('h3', { id: 'redaction-title', text: 'redaction' }),
    el('p', { className: 'hint', text: 'Blur faces or number plates in what is published: draw boxes on the photo, or give them in percent of the photo.' }),
    el('p', { className: 'buttons' }, [
      el('button', { type: 'button', id: 'redaction-draw', 'aria-pressed': 'false', onclick: () => toggleDrawing() }, ['draw boxes on the photo']),
      ' ',
      el('button', { type: 'button', id: 'approve-redacted', disabled: 'disabled', onclick: () => decide('approve', null, { redact: state.boxes.map(boxText) }) }, ['approve with redaction']),
    ]),
    el('p', { id: 'redaction-count', className: 'count', role: 'status' }),
    el('ul', { id: 'redaction-list', className: 'redaction-list' }),
    form,
    el('p', { id: 'box-error', className: 'field-error', hidden: 'hidden', text: 'A box is four numbers from 0 to 100, its width and height above 0.' }),
  ]);
}

function renderCard(post) {
  const card = $('card');
  state.boxes = [];
  state.drawing = false;
  const photo = post.photo
    ? el('img', {
      src: '/api/photo?id=' + encodeURIComponent(post.id) + '&size=' + photoSize(),
      alt: 'the photo of post ' + shownText(post.id),
    })
    : el('p', { className: 'empty', text: 'no photo' });
  const rows = el('dl');
  const row = (name, value) => {
    if (value === null || value === undefined || value === '') return;
    rows.append(el('dt', { text: name }), el('dd', null, [typeof value === 'string' ? userText(value) : value]));
  };
  if (post.user) {
    row('user', el('button', {
      type: 'button', className: 'user-link', 'aria-keyshortcuts': 'p', onclick: () => userPanel(post.user),
    }, [userText(post.user), el('span', { className: 'sr', text: ': their posts' })]));
  }
  row('date', post.date);
  if (typeof post.lat === 'number' && typeof post.lon === 'number') {
    row('position', el('span', null, [place(post.lat, post.lon, post.positionLink)]));
  }
  if (typeof post.exifLat === 'number' && typeof post.exifLon === 'number') {
    row('photo taken', el('span', null, [place(post.exifLat, post.exifLon, post.photoPositionLink)]));
  }
  row('EXIF time', post.exifTime);
  row('version', post.version);
  row('note', post.note);
  const signals = el('ul', { className: 'signals' });
  for (const signal of post.signalDetails) {
    signals.append(el('li', null, [el('span', { className: 'name', text: signal.name }), ' ', userText(signal.detail)]));
  }
  const related = el('div', { className: 'related' });
  for (const other of post.related) {
    related.append(el('button', {
      type: 'button', 'data-related': other.id, onclick: () => openByID(other.id),
    }, [
      other.photo ? el('img', { src: '/api/photo?id=' + encodeURIComponent(other.id) + '&size=160', alt: '' }) : null,
      el('span', { className: 'sr', text: 'open post ' }), userText(other.id),
    ]));
  }
  const history = el('ol', { className: 'history' });
  for (const entry of post.history) {
    history.append(el('li', { 'data-kind': entry.kind }, [
      userText(entry.at), ' ', userText(entry.who), ': ', kindWords(entry) + entry.from + ' → ' + entry.to,
      entry.reason ? [' (', userText(entry.reason), ')'] : null, entry.note ? [' — ', userText(entry.note)] : null,
    ]));
  }
  const note = el('textarea', { id: 'note', rows: '2', maxlength: '1000' });
  note.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === 'Escape') { event.preventDefault(); note.blur(); }
  });
  card.replaceChildren(
    // What the card must say at once (a decision not sent) comes first, above the photo.
    el('div', { id: 'notice', className: 'notice', role: 'alert' }),
    el('div', { className: 'photo' }, [
      post.photo ? el('div', { className: 'photo-frame' }, [photo, el('div', { className: 'redaction-layer', 'aria-hidden': 'true' })]) : photo,
    ]),
    el('div', { className: 'info' }, [
      el('h2', null, [userText(post.id, { className: 'id' }), ' ', el('span', { className: 'status', text: post.status })]),
      changes(post),
      rows,
      userText(post.description || '', { className: 'description', dir: 'auto' }, 'p'),
      signals, related,
      el('label', { for: 'note', className: 'note-label' }, ['note for the decision ', el('kbd', { 'aria-hidden': 'true', text: 'n' })]),
      note,
      redactionControls(post),
      post.history.length ? el('h3', { text: 'history' }) : null, post.history.length ? history : null,
    ]),
    map(post),
  );
  card.dataset.id = post.id;
  const frame = card.querySelector('.photo-frame');
  if (frame) { wireDrawing(frame); renderBoxes(); }
  renderNotice();
  renderActions();
  renderOutbox();
}

// Then and now: the fields that changed since the version the moderator saw, or since
// the version the last decision was made on (`earlier`, when the server sends it).
function changes(post) {
  const earlier = post.earlier;
  if (!earlier || typeof earlier !== 'object') return null;
  const position = (lat, lon) => (typeof lat === 'number' && typeof lon === 'number' ? lat.toFixed(6) + ', ' + lon.toFixed(6) : '');
  const fields = [
    ['user', earlier.user, post.user],
    ['position', position(earlier.lat, earlier.lon), position(post.lat, post.lon)],
    ['date', earlier.date, post.date],
    ['description', earlier.description, post.description],
  ].filter(([, then, now]) => (then || '') !== (now || ''));
  if (earlier.photoChanged) fields.push(['photo', 'another photo', 'this photo']);
  const table = el('table', { className: 'changes' }, [
    el('caption', null, ['Changed since version ', userText(earlier.version || '?'),
      earlier.why === 'decided' ? ' (the last decision was made on it)' : ' (the one you saw)']),
    el('thead', null, [el('tr', null, [
      el('th', { scope: 'col', text: 'field' }), el('th', { scope: 'col', text: 'then' }), el('th', { scope: 'col', text: 'now' }),
    ])]),
    el('tbody', null, fields.map(([name, then, now]) => el('tr', null, [
      el('th', { scope: 'row', text: name }),
      el('td', { className: 'then' }, [name === 'photo' ? then : userText(then || '–', { dir: 'auto' })]),
      el('td', { className: 'now' }, [name === 'photo' ? now : userText(now || '–', { dir: 'auto' })]),
    ]))),
  ]);
  return fields.length ? table : el('p', { className: 'changes', text: 'Changed since version ' + shownText(earlier.version || '?') + ': the same fields, another photo file.' });
}

function map(post) {
  if (typeof post.lat !== 'number') return el('div', { className: 'map' });
  const box = el('div', { className: 'map-image' });
  loadMap(post.id, box);
  const key = (kind, text) => el('li', null, [el('span', { className: 'key ' + kind, 'aria-hidden': 'true' }), text]);
  const legend = el('ul', { className: 'legend' }, [
    key('claimed', 'where the post says it is'),
    typeof post.exifLat === 'number' ? key('photo', 'where the photo says it was taken') : null,
    typeof post.exifLat === 'number' ? key('gap', 'the distance between them') : null,
    post.neighbours && post.neighbours.length ? key('neighbour', 'other posts within 25 m') : null,
    state.me.area ? key('area', 'the review area (when in view)') : null,
  ]);
  return el('figure', { className: 'map' }, [box, el('figcaption', null, [el('span', { className: 'sr', text: 'Map key: ' }), legend])]);
}

async function loadMap(id, box) {
  let text;
  try {
    const response = await fetch('/api/map.svg?id=' + encodeURIComponent(id), { credentials: 'same-origin' });
    if (!response.ok) return;
    text = await response.text();
  } catch (error) {
    return;
  }
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = parsed.documentElement;
  if (svg.nodeName !== 'svg') return;
  for (const script of svg.querySelectorAll('script, foreignObject')) script.remove();
  if (state.current && state.current.id === id) box.replaceChildren(document.importNode(svg, true));
}

// What the card says about the post's decision: a decision that did not reach the
// server (with Retry and Drop), an approval waiting for a confirmation, who holds it.
function renderNotice() {
  const notice = $('notice');
  const post = state.current;
  if (!notice || !post) return;
  const entry = state.outbox.find((e) => e.id === post.id);
  const holder = post.claimedBy && post.claimedBy !== state.me.moderator ? post.claimedBy : null;
  const parts = [];
  if (entry) {
    notice.className = 'notice error';
    parts.push(el('p', null, [
      el('strong', { text: entry.sending ? 'Sending again: ' : 'Not sent: ' }),
      entry.what + ' ' + entry.problem + '. It is kept here until it is sent or dropped.',
    ]), el('p', { className: 'buttons' }, [
      el('button', { type: 'button', className: 'retry', disabled: entry.sending, onclick: () => retry(entry) }, ['Retry']),
      el('button', { type: 'button', className: 'drop', disabled: entry.sending, onclick: () => drop(entry) }, ['Drop']),
    ]));
  } else if (state.confirm) {
    notice.className = 'notice error';
    parts.push(el('p', { text: state.confirmText }), el('p', { className: 'buttons' }, [
      el('button', { type: 'button', className: 'confirm', 'aria-keyshortcuts': 'y', onclick: () => decide('approve', null, { confirmed: true }) },
        ['approve anyway ', el('kbd', { 'aria-hidden': 'true', text: 'y' })]),
      el('button', { type: 'button', onclick: cancelConfirm }, ['cancel']),
    ]));
  } else if (holder) {
    notice.className = 'notice info';
    parts.push(el('p', null, ['taken by ', userText(holder), ': they have it open']));
  }
  // Drawn again only when what it says changed: a redraw between a press and its release
  // would swallow the moderator's click on Retry or Drop.
  const said = JSON.stringify([post.id, entry ? [entry.what, entry.problem, !!entry.sending] : null,
    state.confirm ? state.confirmText : null, holder]);
  if (notice.dataset.said === said) return;
  notice.dataset.said = said;
  notice.replaceChildren();
  append(notice, parts);
  if (parts.length) notice.scrollIntoView({ block: 'nearest' });
}

function renderActions() {
  const none = !state.current;
  for (const id of ['approve', 'reject', 'flag', 'skip']) $(id).disabled = none;
  $('undo').disabled = state.undo.length === 0;
}

// MARK: - Deciding

const done = { approve: 'approved', flag: 'flagged', reject: 'rejected' };

function noteText() {
  const note = $('note');
  return note ? note.value.trim() : '';
}

function describe(body) {
  return body.action + (body.reason ? ' (' + body.reason + ')' : '') + ' of ' + shownText(body.id);
}

async function decide(action, reason, options) {
  options = options || {};
  const post = state.current;
  // One decision on a post at a time: a second press while the first is on its way waits.
  if (!post || state.sending.has(post.id)) return;
  const note = options.note !== undefined ? options.note : noteText();
  const body = { id: post.id, version: post.version, seen: post.status, action, note: note || undefined };
  if (reason) body.reason = reason;
  if (options.confirmed) body.confirmed = true;
  if (options.redact && options.redact.length) body.redact = options.redact;
  state.confirm = false;
  await send({ id: post.id, body, what: describe(body) });
}

// Sends a decision. One that did not reach the server stays in the outbox and on its card
// until it is sent or dropped; sending it again is safe, since it names the version and
// status the moderator saw: the server never records it twice.
async function send(entry, again) {
  entry.sending = true;
  state.sending.add(entry.id);
  if (again) { renderNotice(); renderOutbox(); }
  const answer = await api('/api/decide', entry.body);
  entry.sending = false;
  state.sending.delete(entry.id);
  const { status, data } = answer;
  if (status === 0 || status >= 500) {
    entry.problem = status === 0
      ? 'did not reach the server (' + data.message + ')'
      : 'was not recorded (the server failed: ' + (data.message || status) + ')';
    keep(entry);
    return;
  }
  unkeep(entry);
  const target = done[entry.body.action];
  // The same decision by this moderator is on record: an earlier try reached the server
  // but its answer was lost on the way back.
  const already = status === 409 && data.error === 'decided' && data.by === state.me.moderator && data.status === target;
  if (status === 200 || already) {
    await applied(entry, data.status || target, already);
    return;
  }
  if (!state.current || state.current.id !== entry.id) {
    say([entry.what + ': ', problem(answer, 'refused')], 'error');
    renderList();
    return;
  }
  if (data.error === 'confirm') {
    state.confirm = true;
    state.confirmText = data.message || 'the photo could not be read: approve anyway?';
    renderNotice();
    const button = document.querySelector('#notice .confirm');
    if (button) button.focus();
    return;
  }
  state.refused = true;
  say(problem(answer, 'refused'), 'error', { topic: 'post', action: { label: 'reload (Enter)', run: reloadCurrent } });
}

async function applied(entry, status, already) {
  const item = state.posts.find((p) => p.id === entry.id);
  undoable({ id: entry.id, status, version: entry.body.version, count: 1 }, [entry.id]);
  if (item) {
    item.status = status;
    item.decided = hiddenStatus(status);
  }
  state.claims.delete(entry.id);
  const what = entry.body.action === 'reject' ? 'rejected (' + entry.body.reason + ')'
    : entry.body.redact ? status + ' with redaction (' + boxes(entry.body.redact.length) + ')' : status;
  say([what + ': ', userText(entry.id), already ? ' (the earlier try had reached the server)' : '']);
  if (state.current && state.current.id === entry.id) {
    state.current = null;
    await openNext(state.index);
  } else {
    renderList();
    renderActions();
  }
}

function cancelConfirm() {
  state.confirm = false;
  renderNotice();
  say('not approved');
  $('approve').focus();
}

async function reloadCurrent() {
  say('');
  const seen = state.current ? state.current.version : undefined;
  if (state.index >= 0) await open(state.index, false, seen);
}

// MARK: - Decisions not sent

function storageKey() {
  return 'trove-review-unsent:' + (state.me ? state.me.moderator : '');
}

function saveOutbox() {
  try {
    const kept = state.outbox.map(({ id, body, what, problem }) => ({ id, body, what, problem }));
    if (kept.length) localStorage.setItem(storageKey(), JSON.stringify(kept));
    else localStorage.removeItem(storageKey());
  } catch (error) { /* storage refused: the outbox lives as long as the page */ }
}

function loadOutbox() {
  try {
    const kept = JSON.parse(localStorage.getItem(storageKey()) || '[]');
    if (Array.isArray(kept)) {
      state.outbox = kept.filter((e) => e && typeof e.id === 'string' && e.body && typeof e.what === 'string');
    }
  } catch (error) { state.outbox = []; }
}

function keep(entry) {
  const index = state.outbox.findIndex((e) => e.id === entry.id);
  if (index >= 0) state.outbox[index] = entry; else state.outbox.push(entry);
  saveOutbox();
  renderNotice();
  renderOutbox();
  renderList();
}

function unkeep(entry) {
  const before = state.outbox.length;
  state.outbox = state.outbox.filter((e) => e !== entry && e.id !== entry.id);
  if (state.outbox.length !== before) {
    saveOutbox();
    renderNotice();
    renderOutbox();
  }
}

async function retry(entry) {
  if (entry.sending || state.sending.has(entry.id)) return;
  await send(entry, true);
}

function drop(entry) {
  unkeep(entry);
  renderList();
  say(['dropped: ' + entry.what + ' (not sent)']);
  if (state.current && state.current.id === entry.id) $('approve').focus();
}

// The decisions not sent for posts other than the one on view (that one says so on its card).
function renderOutbox() {
  const others = state.outbox.filter((e) => !state.current || e.id !== state.current.id);
  const list = $('outbox-list');
  list.replaceChildren();
  for (const entry of others) {
    list.append(el('li', { 'data-id': entry.id }, [
      el('span', null, [entry.what + ': ' + (entry.sending ? 'sending…' : entry.problem)]),
      el('button', { type: 'button', className: 'retry', disabled: entry.sending, onclick: () => retry(entry) }, ['Retry']),
      el('button', { type: 'button', className: 'drop', disabled: entry.sending, onclick: () => drop(entry) }, ['Drop']),
    ]));
  }
  $('outbox').hidden = others.length === 0;
}

// MARK: - Skip and undo

async function skip() {
  const post = state.current;
  if (!post) return;
  const answer = await api('/api/release', { id: post.id });
  state.claims.delete(post.id);
  state.current = null;
  say(answer.status === 0
    ? ['skipped ', userText(post.id), ' (the server did not hear it: the claim ends by itself)']
    : ['skipped ', userText(post.id)]);
  await openNext(state.index);
}

// Undoes the moderator's last decision (a bulk one whole). The workspace keeps what each
// moderator can undo, so the list outlives a reload (`/api/me` gives it back) and an
// undo works wherever the decision was made. The undo names the version decided on and
// the status the decision left: sent again after its answer was lost, it finds its own
// undo on record and counts as done, and never undoes the undo.
async function undo() {
  const last = state.undo[state.undo.length - 1];
  if (!last) { say('nothing to undo', 'error'); return; }
  const answer = await api('/api/undo', { id: last.id, version: last.version, seen: last.status });
  if (answer.status === 0) {
    say(['undo of ', userText(last.id), ' did not reach the server (' + answer.data.message + '): try again'], 'error', { topic: 'link' });
    return;
  }
  state.undo.pop();
  renderActions();
  const data = answer.data;
  const again = answer.status === 409 && data.error === 'undone' && data.by === state.me.moderator;
  if (answer.status !== 200 && !again) {
    say([problem(answer, 'not undone') + ' (', userText(last.id), ')'], 'error', { topic: 'post' });
    return;
  }
  const posts = data.undone || [{ id: last.id, status: data.status }];
  if (posts.length === 1 && !data.kept) {
    await undone(last.id, data.status);
    return;
  }
  say(['undone: ' + count(posts.length, 'post') + ' back to ' + [...new Set(posts.map((p) => p.status))].join(', '),
    data.kept ? ', ' + data.kept + ' left as ' + (data.kept === 1 ? 'it is' : 'they are') + ' (decided since)' : '']);
  await loadQueue(state.current ? state.current.id : undefined);
}

async function undone(id, status) {
  say(['undone: ', userText(id), ' is ' + status + ' again']);
  const index = state.posts.findIndex((p) => p.id === id);
  if (index < 0) { await openByID(id, true); return; }
  state.posts[index].status = status;
  state.posts[index].decided = false;
  await open(index);
}

// Something the moderator can undo, newest last; an earlier entry for one of its posts
// goes, as only the latest decision on a post can be undone.
function undoable(entry, ids) {
  state.undo = state.undo.filter((e) => !ids.includes(e.id));
  state.undo.push(entry);
}

// MARK: - Dialogs

// The reasons, the flag's note and the help are modal dialogs: the page behind them is
// inert, Esc closes them, and the focus goes back where it was.
function openDialog(id, focus) {
  const dialog = $(id);
  if (!dialog.open) {
    const active = document.activeElement;
    state.opener = active && active !== document.body ? active : null;
    dialog.showModal();
  }
  const first = focus || dialog.querySelector('button, input');
  if (first) first.focus();
}

function closeDialogs() {
  for (const dialog of document.querySelectorAll('dialog')) {
    if (!dialog.open) continue;
    // The focus leaves with the dialog at once: the next key must not reach its input.
    if (dialog.contains(document.activeElement)) document.activeElement.blur();
    dialog.close();
  }
  restoreFocus();
}

function restoreFocus() {
  const opener = state.opener;
  state.opener = null;
  if (!document.querySelector('dialog[open]') && opener && opener.isConnected && !opener.disabled) opener.focus();
}

function closePanel() {
  $('user-panel').hidden = true;
  const opener = state.panelOpener;
  state.panelOpener = null;
  if (opener && opener.isConnected && !opener.disabled) opener.focus();
}

function closeOverlays() {
  closeDialogs();
  if (!$('user-panel').hidden) closePanel();
}

function showReasons() {
  if (!state.current) return;
  openDialog('reasons');
}

async function chooseReason(reason) {
  closeDialogs();
  await decide('reject', reason);
}

function askFlag() {
  if (!state.current) return;
  const input = $('flag-note');
  input.value = noteText();
  input.removeAttribute('aria-invalid');
  $('flag-error').hidden = true;
  openDialog('flag-dialog', input);
}

async function sendFlag(event) {
  event.preventDefault();
  const input = $('flag-note');
  const note = input.value.trim();
  if (!note) {
    input.setAttribute('aria-invalid', 'true');
    $('flag-error').hidden = false;
    input.focus();
    return;
  }
  closeDialogs();
  await decide('flag', null, { note });
}

function toggleHelp() {
  if ($('help').open) closeDialogs(); else openDialog('help', $('help-close'));
}

function toggleFilters(open) {
  const header = document.querySelector('header');
  const shown = open === undefined ? !header.classList.contains('filters-open') : open;
  header.classList.toggle('filters-open', shown);
  $('filters-button').setAttribute('aria-expanded', String(shown));
}

// The filters button says how many filters are on while they are out of sight.
function showFilterCount() {
  const on = [...filters().keys()].filter((name) => name !== 'status').length + ($('f-status').value === 'open' ? 0 : 1);
  $('filters-button').textContent = on ? 'filters (' + on + ' on)' : 'filters';
}

// MARK: - The user's panel

async function userPanel(user) {
  const answer = await api('/api/user?user=' + encodeURIComponent(user));
  if (answer.status !== 200) { say(problem(answer, 'the user could not be read'), 'error', { topic: 'post' }); return; }
  const data = answer.data;
  $('user-name').replaceChildren(userText(user));
  const posts = $('user-posts');
  posts.replaceChildren();
  for (const post of data.posts) {
    posts.append(el('li', { 'data-id': post.id }, [
      el('button', { type: 'button', onclick: () => { closeOverlays(); openByID(post.id); } }, [userText(post.id)]),
      ' ' + post.status + ' ', post.date ? userText(post.date) : null, ' ', userText(cut(post.description, 80)),
    ]));
  }
  const decisions = $('user-decisions');
  decisions.replaceChildren();
  for (const entry of data.decisions) {
    decisions.append(el('li', null, [
      userText(entry.at), ' ', userText(entry.id), ': ' + kindWords(entry) + entry.to + ' by ', userText(entry.who),
      entry.reason ? [' (', userText(entry.reason), ')'] : null, entry.note ? [' — ', userText(entry.note)] : null,
    ]));
  }
  const pending = data.posts.filter((p) => p.status === 'pending');
  const button = $('user-reject');
  button.textContent = pending.length === 1 ? 'reject the 1 pending post of this user'
    : 'reject all ' + pending.length + ' pending posts of this user';
  button.disabled = pending.length === 0;
  button.onclick = () => confirmRejectAll(user, pending);
  $('user-confirm').hidden = true;
  if ($('user-panel').hidden) state.panelOpener = document.activeElement;
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
  let text = texts[follow.state] || shownText(String(follow.state));
  if (follow.stored) text += ' · ' + follow.stored + ' posts in since start';
  line.textContent = text;
  line.title = shownText(follow.url + (follow.message ? ': ' + follow.message : ''));
  line.dataset.state = follow.state;
  line.hidden = false;
}

// Asks in the panel before rejecting every pending post of a user.
function confirmRejectAll(user, pending) {
  const reason = $('user-reason').value;
  const box = $('user-confirm');
  const yes = el('button', { type: 'button', className: 'danger', onclick: () => rejectAll(user, reason, pending) },
    ['reject ' + count(pending.length, 'post')]);
  box.replaceChildren();
  // Posts a colleague has open are left to them (the server checks again).
  const taken = pending.filter((p) => takenBy(p)).length;
  append(box, [
    el('span', null, ['Reject ' + (pending.length === 1 ? 'the 1 pending post' : 'all ' + pending.length + ' pending posts') +
      ' of ', userText(user), ' as ' + reason + '?',
      taken ? ' ' + count(taken, 'post') + ' open by a colleague ' + (taken === 1 ? 'is' : 'are') + ' left to them.' : '']), yes,
    el('button', { type: 'button', onclick: () => { box.hidden = true; $('user-reject').focus(); } }, ['cancel']),
  ]);
  box.hidden = false;
  yes.focus();
}

async function rejectAll(user, reason, pending) {
  const result = await api('/api/reject-user', {
    user, reason, note: noteText() || undefined, posts: pending.map((p) => ({ id: p.id, version: p.version })),
  });
  if (result.status !== 200) {
    say(['not rejected: ', problem(result, 'refused')], 'error', { topic: result.status === 0 ? 'link' : 'post' });
    return;
  }
  const data = result.data;
  // One action: one undo takes all of it back.
  if (data.undo) undoable(data.undo, data.ids || [data.undo.id]);
  renderActions();
  const claimed = data.claimed
    ? [', ' + data.claimed + ' skipped (claimed by ', (data.claimedBy || []).map((m, i) => [i ? ', ' : '', userText(m)]), ')']
    : '';
  say(['rejected ' + count(data.rejected || 0, 'post') + ' of ', userText(user), claimed,
    data.refused ? ', ' + data.refused + ' refused (changed or decided)' : '',
    data.rejected ? ' (u undoes it)' : '']);
  closeOverlays();
  await loadQueue();
}

// MARK: - Others' decisions

async function poll() {
  const shown = state.current;
  const view = state.view;
  const { status, data } = await api('/api/changes?since=' + state.seq);
  if (status !== 200) return;
  state.seq = data.seq;
  showFollow(data.follow);
  // An import or a pull brought posts: the list and its count are read again.
  if (typeof data.imports === 'number' && data.imports !== state.imports && await refreshQueue()) {
    state.imports = data.imports;
  }
  // Whether the post on view was held by this page until now (then the claim is renewed,
  // else claimed afresh: one that another moderator held, or one left to run out idle).
  const wasMine = shown && state.claims.get(shown.id) === state.me.moderator;
  const claims = new Map(data.claims.map((c) => [c.id, c.moderator]));
  let changed = false;
  for (const id of new Set([...claims.keys(), ...state.claims.keys()])) {
    if (claims.get(id) !== state.claims.get(id)) changed = true;
  }
  state.claims = claims;
  // The post on screen stays claimed while it is open and the moderator is there: a
  // claim that ran out is renewed (not while another post is being opened, or a decision
  // is ending this one), but not after review.claim-minutes without a key, a tap or the
  // pointer moving, and not once a lead released it.
  if (state.current && state.current === shown && view === state.view && !state.busy && !claims.has(shown.id) &&
      !data.decisions.some((d) => d.id === shown.id) && state.released !== shown.id) {
    if (idle()) {
      if (state.idleFor !== shown.id) {
        state.idleFor = shown.id;
        say(['your claim on ', userText(shown.id), ' ended: nothing happened here for ' +
          count(state.me.claimMinutes, 'minute') + '; the others may open it'], 'error', { topic: 'post' });
      }
    } else {
      const again = await api('/api/claim', wasMine ? { id: shown.id, renew: true } : { id: shown.id });
      if (again.status === 200) {
        state.claims.set(shown.id, state.me.moderator);
        if (state.idleFor === shown.id) { state.idleFor = null; clearMessage('post'); }
      } else if (again.status === 409 && again.data.error === 'lost') {
        state.released = shown.id;
        say(['someone else had ', userText(shown.id), ' open since your claim ended: open it again to claim it'],
          'error', { topic: 'post' });
      } else if (again.status === 409 && again.data.error === 'released') {
        state.released = shown.id;
        say([userText(again.data.by), ' released your claim on ', userText(shown.id),
          ': the others may open it'], 'error', { topic: 'post' });
      } else if (again.status === 409) {
        state.claims.set(shown.id, again.data.by);
        say([userText(shown.id), ' is taken by ', userText(again.data.by), ' now'], 'error', { topic: 'post' });
      }
    }
  }
  for (const decision of data.decisions) {
    const post = state.posts.find((p) => p.id === decision.id);
    if (!post) continue;
    post.status = decision.status;
    post.version = decision.version;
    post.decided = hiddenStatus(decision.status);
    changed = true;
    // A change the card already shows (it was made before the post was opened) is no news.
    const shownAlready = state.current && (state.current.history || []).some((h) => h.seq === decision.seq);
    if (state.current && state.current.id === decision.id && decision.moderator !== state.me.moderator && !shownAlready) {
      say([userText(decision.id), ' was just ' + (decision.moderator ? 'decided' : 'changed') + ' by ',
        userText(decision.who), ' (' + kindWords(decision) + decision.to + ')'], 'error',
        { topic: 'post', action: { label: 'reload (Enter)', run: reloadCurrent } });
      state.refused = true;
    }
  }
  if (changed) renderList();
  // Decisions move posts in and out of the filtered queue: its count follows.
  if (data.decisions.length) await refreshCount();
}

async function refreshCount() {
  const params = filters();
  params.set('limit', '1');
  const answer = await api('/api/queue?' + params.toString());
  if (answer.status === 200) $('count').textContent = count(answer.data.total, 'post');
}

// Whether the moderator did nothing in the page for review.claim-minutes.
function idle() {
  const minutes = state.me && typeof state.me.claimMinutes === 'number' ? state.me.claimMinutes : 5;
  return Date.now() - state.active > minutes * 60000;
}

function active() {
  state.active = Date.now();
}

async function pollForever() {
  for (;;) {
    await poll();
    showConnection();
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// MARK: - Keys

function typing(target) {
  return target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') &&
    !target.closest('dialog:not([open])');
}

document.addEventListener('keydown', async (event) => {
  const target = event.target;
  const key = event.key;
  const dialog = document.querySelector('dialog[open]');
  const panel = !$('user-panel').hidden;
  if (key === 'Escape' && (dialog || panel || state.confirm)) {
    event.preventDefault();
    if (dialog) closeDialogs(); else if (panel) closePanel(); else cancelConfirm();
    return;
  }
  if (typing(target)) {
    if (key === 'Escape') target.blur();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (dialog) {
    const number = Number(key);
    if (dialog.id === 'reasons' && number >= 1 && number <= state.me.reasons.length) {
      event.preventDefault();
      await chooseReason(state.me.reasons[number - 1]);
    }
    return;
  }
  if (state.confirm && key === 'y') {
    event.preventDefault();
    await decide('approve', null, { confirmed: true });
    return;
  }
  // Enter and Space belong to the button or link that has the focus.
  if ((key === 'Enter' || key === ' ') && target && (target.tagName === 'BUTTON' || target.tagName === 'A')) return;
  if (panel && key !== '?') return;
  const actions = {
    a: () => decide('approve'), r: () => showReasons(), f: () => askFlag(), s: () => skip(),
    u: () => undo(), j: () => openNext(state.index),
    k: () => { if (state.index > 0) open(state.index - 1); },
    p: () => { if (state.current && state.current.user) userPanel(state.current.user); },
    n: () => { const note = $('note'); if (note) note.focus(); },
    '/': () => { toggleFilters(true); $('f-q').focus(); },
    '?': () => toggleHelp(),
    Enter: () => { if (state.refused) reloadCurrent(); },
  };
  const run = actions[key];
  if (run) { event.preventDefault(); await run(); }
});

// MARK: - Start

async function start() {
  for (const type of ['keydown', 'pointerdown', 'pointermove', 'wheel', 'touchstart']) {
    document.addEventListener(type, active, { capture: true, passive: true });
  }
  const answer = await api('/api/me');
  if (answer.status === 0) {
    say(['cannot start: ', answer.data.message, ' (trying again)'], 'error', { topic: 'link' });
    setTimeout(start, 2000);
    return;
  }
  if (answer.status !== 200) {
    say('not signed in: open your sign-in link', 'error', { topic: 'link' });
    $('card').replaceChildren(el('p', { className: 'empty', text: 'Not signed in.' }));
    return;
  }
  const data = answer.data;
  state.me = data;
  state.seq = data.seq;
  showFollow(data.follow);
  state.imports = data.imports;
  state.undo = (data.undoable || []).map((a) => ({ id: a.id, version: a.version, status: a.status, count: a.count }));
  $('who').textContent = shownText(data.moderator);
  const signal = $('f-signal');
  for (const name of data.signals) signal.append(el('option', { value: name, text: name }));
  if (data.area) $('f-area').append(el('option', { value: 'review', text: 'in the review area' }));
  const reasons = $('reason-list');
  const select = $('user-reason');
  data.reasons.forEach((reason, index) => {
    reasons.append(el('li', null, [el('button', {
      type: 'button', 'data-reason': reason, 'aria-keyshortcuts': String(index + 1), onclick: () => chooseReason(reason),
    }, [el('span', { text: reason }), el('kbd', { 'aria-hidden': 'true', text: String(index + 1) })])]));
    select.append(el('option', { value: reason, text: reason }));
  });
  loadOutbox();
  await loadQueue();
  renderOutbox();
  renderActions();
  pollForever();
}

function wire() {
  for (const id of ['f-status', 'f-signal', 'f-area']) $(id).addEventListener('change', filtersChanged);
  for (const id of ['f-user', 'f-q']) {
    $(id).addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); event.target.blur(); filtersChanged(); }
    });
  }
  $('filters').addEventListener('submit', (event) => { event.preventDefault(); filtersChanged(); });
  $('filters-button').addEventListener('click', () => toggleFilters());
  $('help-button').addEventListener('click', toggleHelp);
  $('help-close').addEventListener('click', closeDialogs);
  $('reasons-cancel').addEventListener('click', closeDialogs);
  $('flag-cancel').addEventListener('click', closeDialogs);
  $('flag-form').addEventListener('submit', sendFlag);
  $('user-close').addEventListener('click', closeOverlays);
  $('approve').addEventListener('click', () => decide('approve'));
  $('reject').addEventListener('click', showReasons);
  $('flag').addEventListener('click', askFlag);
  $('skip').addEventListener('click', skip);
  $('undo').addEventListener('click', undo);
  for (const dialog of document.querySelectorAll('dialog')) dialog.addEventListener('close', restoreFocus);
  // Leaving the page ends the claim on the post it showed.
  window.addEventListener('pagehide', () => {
    if (!state.current || !state.me) return;
    fetch('/api/release', {
      method: 'POST', keepalive: true, credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': state.me.csrf },
      body: JSON.stringify({ id: state.current.id }),
    }).catch(() => {});
  });
}

wire();
start();

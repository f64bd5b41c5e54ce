// The drop page (/drop#DROPS-…): seals files to a vault's drop code in the page and posts
// only the sealed blobs (docs/FORMAT.md §10; docs/API.md, "Drops"). The code comes in the
// URL's fragment, which the browser never sends; no plaintext and no code leaves the page.
// The sealing mirrors tests/interop/obscura_drop.py: HPKE base mode, DHKEM(X25519,
// HKDF-SHA256), HKDF-SHA256, export-only AEAD (RFC 9180), then §6.6's chunks under the root.

import { icon } from './icons.js';
import { bytes } from './format.js';

const enc = new TextEncoder();

// §10.1 and §4.3: the drop code.
const CODE_WORD = 'DROPS';
const CODE_CHECK_BYTE = 0x50;
const KEY_CHECK_LABEL = enc.encode('obscura key check v1');
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// §10.2: HPKE's suite, info and exporter context.
const KEM_ID = 0x0020;
const KDF_ID = 0x0001;
const AEAD_ID = 0xffff;
const INFO = enc.encode('obscura drop v1');
const EXPORT_CONTEXT = enc.encode('obscura drop v1 payload');
// §10.3 and §6.6: the blob's header and chunks.
const MAGIC = [0x4f, 0x42, 0x53, 0x4b];
const CHUNK_SIZE = 262144;
const HEADER_SIZE = 52;
const INNER_KEY_LABEL = enc.encode('obscura media v2 inner key');
// §10.4: the envelope.
const ENVELOPE_VERSION = 1;
const KIND_FILE = 1;
const KIND_NOTE = 2;
// A note's largest body (docs/FORMAT.md §3.3 "Notes"): the vault refuses a larger one.
const MAX_NOTE_BYTES = 1 << 20;
const MAX_NAME_BYTES = 255;
// The largest file this page seals: the blob is held whole in memory before it is posted,
// and the server takes no more (DropRoutes.defaultContentLimit).
export const MAX_FILE_SIZE = 1024 * 1024 * 1024;

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
};
const u16 = (n) => new Uint8Array([n >> 8, n & 0xff]);
const u32 = (n) => new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
const u64 = (n) => concat(u32(Math.floor(n / 2 ** 32)), u32(n >>> 0));

/** The value of one symbol read as §4.2 reads it (O as 0, I and L as 1, any case), or -1. */
function symbolValue(c) {
  const up = c.toUpperCase();
  const folded = up === 'O' ? '0' : (up === 'I' || up === 'L') ? '1' : up;
  return CROCKFORD.indexOf(folded);
}

/** The 32-byte public key of a drop code (§10.1, read as §4.3's decode_key_text), or null. */
export async function decodeDropCode(text) {
  const symbols = [...text].filter((c) => !'- \t\r\n'.includes(c)).join('');
  if (symbols.length !== 61 || !/^[\x21-\x7e]+$/.test(symbols)) return null;
  if (symbols.slice(0, 5).toUpperCase() !== CODE_WORD) return null;
  const values = [...symbols.slice(5)].map(symbolValue);
  if (values.some((v) => v < 0)) return null;
  // 52 symbols, 260 bits: the key's 256 and 4 padding bits that must be zero.
  const key = new Uint8Array(32);
  let acc = 0; let bits = 0; let at = 0;
  for (const v of values.slice(0, 52)) {
    acc = (acc << 5) | v; bits += 5;
    if (bits >= 8) { bits -= 8; key[at++] = (acc >> bits) & 0xff; acc &= (1 << bits) - 1; }
  }
  if (acc !== 0) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', concat(KEY_CHECK_LABEL, [CODE_CHECK_BYTE], key)));
  // The first 20 bits of the digest as 4 symbols.
  const check = ((digest[0] << 12) | (digest[1] << 4) | (digest[2] >> 4));
  const expected = [15, 10, 5, 0].map((shift) => (check >> shift) & 31);
  let diff = 0;
  expected.forEach((v, i) => { diff |= v ^ values[52 + i]; });
  return diff === 0 ? key : null;
}

async function hmac(key, data) {
  // An empty HKDF salt is HashLen zeros (RFC 5869 §2.2); WebCrypto refuses an empty key.
  const k = await crypto.subtle.importKey('raw', key.length ? key : new Uint8Array(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, data));
}
const expand = async (prk, info, length) => (await hmac(prk, concat(info, [1]))).slice(0, length);
const HPKE_V1 = enc.encode('HPKE-v1');
const labeledExtract = (suite, salt, label, ikm) => hmac(salt, concat(HPKE_V1, suite, enc.encode(label), ikm));
const labeledExpand = (suite, prk, label, info, length) =>
  expand(prk, concat(u16(length), HPKE_V1, suite, enc.encode(label), info), length);

/** RFC 9180 §4.1, §5.1 (mode_base), §5.3: the 32-byte root of §10.2. */
async function exportRoot(dh, encapsulated, pkR) {
  const kem = concat(enc.encode('KEM'), u16(KEM_ID));
  const suite = concat(enc.encode('HPKE'), u16(KEM_ID), u16(KDF_ID), u16(AEAD_ID));
  const empty = new Uint8Array(0);
  const shared = await labeledExpand(kem, await labeledExtract(kem, empty, 'eae_prk', dh), 'shared_secret', concat(encapsulated, pkR), 32);
  const context = concat([0], await labeledExtract(suite, empty, 'psk_id_hash', empty), await labeledExtract(suite, empty, 'info_hash', INFO));
  const secret = await labeledExtract(suite, shared, 'secret', empty);
  const exporter = await labeledExpand(suite, secret, 'exp', context, 32);
  return labeledExpand(suite, exporter, 'sec', EXPORT_CONTEXT, 32);
}

/** §10.4: the name a vault shows, reduced as uploads are, at most 255 UTF-8 bytes. */
function envelopeName(name) {
  let shown = (name.split(/[\\/]/).pop() || '').replace(/[\u0000-\u001f\u007f]/g, '');
  while (enc.encode(shown).length > MAX_NAME_BYTES) shown = [...shown].slice(0, -1).join('');
  return enc.encode(shown);
}

/**
 * Seals `file` to `publicKey` (§10.2-§10.4) and returns the blob, chunk by chunk so that
 * the plaintext is read 256 KiB at a time. `progress` gets the fraction sealed.
 */
export async function sealDrop(publicKey, file, progress = () => {}, kind = KIND_FILE) {
  const ephemeral = await crypto.subtle.generateKey({ name: 'X25519' }, true, ['deriveBits']);
  const encapsulated = new Uint8Array(await crypto.subtle.exportKey('raw', ephemeral.publicKey));
  const recipient = await crypto.subtle.importKey('raw', publicKey, { name: 'X25519' }, false, []);
  const dh = new Uint8Array(await crypto.subtle.deriveBits({ name: 'X25519', public: recipient }, ephemeral.privateKey, 256));
  const root = await exportRoot(dh, encapsulated, publicKey);
  // §10.3: bit 7 of the salt's byte 31 is drawn at random.
  const salt = encapsulated.slice();
  salt[31] |= crypto.getRandomValues(new Uint8Array(1))[0] & 0x80;
  const name = envelopeName(file.name);
  const envelope = concat([ENVELOPE_VERSION, kind], u16(name.length), name);
  const total = envelope.length + file.size;
  const header = concat(MAGIC, u16(2), u16(0), u32(CHUNK_SIZE), u64(total), salt);
  const inner = await expand(await hmac(salt, root), INNER_KEY_LABEL, 32);
  const key = await crypto.subtle.importKey('raw', inner, 'AES-GCM', false, ['encrypt']);
  const count = Math.max(1, Math.ceil(total / CHUNK_SIZE));
  const parts = [header];
  for (let i = 0; i < count; i++) {
    const start = i * CHUNK_SIZE;
    const end = Math.min(total, start + CHUNK_SIZE);
    const content = new Uint8Array(await file.slice(Math.max(0, start - envelope.length), end - envelope.length).arrayBuffer());
    const plain = i === 0 ? concat(envelope, content) : content;
    const iv = concat([0, 0, 0, 0], u64(i));
    const ad = concat(header, [i === count - 1 ? 1 : 0]);
    parts.push(new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ad, tagLength: 128 }, key, plain)));
    progress((i + 1) / count);
  }
  return new Blob(parts, { type: 'application/octet-stream' });
}

/** Posts a blob; resolves on success, rejects with the server's message. */
function post(blob, progress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/drops');
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('X-Obscura-Drop', '1');
    xhr.upload.onprogress = (event) => { if (event.lengthComputable) progress(event.loaded / event.total); };
    xhr.onload = () => {
      if (xhr.status === 201) { resolve(); return; }
      let message = `The server refused the drop (${xhr.status}).`;
      try { message = JSON.parse(xhr.responseText).error || message; } catch { /* not JSON */ }
      reject(new Error(message));
    };
    xhr.onerror = () => reject(new Error('The server could not be reached.'));
    xhr.send(blob);
  });
}

const $ = (id) => document.getElementById(id);

/** A row of the list for one file, with a bar and a message. */
function row(file, label = file.name) {
  const li = document.createElement('li');
  li.className = 'upload-row';
  li.dataset.state = 'uploading';
  const status = document.createElement('span');
  status.className = 'upload-icon';
  status.setAttribute('aria-hidden', 'true');
  const name = document.createElement('span');
  name.className = 'upload-name';
  name.textContent = label;
  const meta = document.createElement('span');
  meta.className = 'upload-meta';
  meta.textContent = bytes(file.size);
  const bar = document.createElement('span');
  bar.className = 'upload-bar';
  const fill = document.createElement('span');
  fill.className = 'upload-fill';
  bar.append(fill);
  const message = document.createElement('span');
  message.className = 'upload-message';
  li.append(status, name, meta, bar, message);
  $('drop-list').append(li);
  return {
    element: li,
    // Sealing is the first half of the bar, sending the second.
    progress(fraction) { fill.style.transform = `scaleX(${fraction})`; },
    status(text) { meta.textContent = text; },
    done() { li.dataset.state = 'done'; status.replaceChildren(icon('done')); meta.textContent = 'Dropped'; },
    failed(text) {
      li.dataset.state = 'failed'; status.replaceChildren(icon('alert'));
      meta.textContent = 'Not dropped'; message.textContent = text;
    },
  };
}

function showError(text) {
  const error = $('drop-error');
  error.textContent = text;
  error.hidden = !text;
}

async function dropFiles(event) {
  event.preventDefault();
  showError('');
  const publicKey = await decodeDropCode($('drop-code').value);
  if (!publicKey) { showError('This is not a valid drop code. Check it against the one the vault shows.'); $('drop-code').focus(); return; }
  if (!window.isSecureContext || !crypto.subtle) { showError('This page needs a secure context (https or localhost) to encrypt.'); return; }
  const files = [...sharedFiles, ...$('drop-files').files].map((file) => ({ file, label: file.name, kind: KIND_FILE }));
  const text = $('drop-note').value;
  if (text.trim()) {
    // A note goes with no name: the vault titles it by its first line of text.
    const firstLine = text.split('\n').find((line) => line.trim()) || '';
    files.push({ file: new File([text], '', { type: 'text/markdown' }), label: 'Note: ' + firstLine.replace(/^#+\s*/, '').trim(), kind: KIND_NOTE });
  }
  if (!files.length) { showError('Choose one or more files to drop, or write a note.'); $('drop-files').focus(); return; }
  const send = $('drop-send');
  send.disabled = true;
  $('drop-status').textContent = '';
  let dropped = 0;
  for (const { file, label, kind } of files) {
    const r = row(file, label);
    // The rows are below the button: keep the one at work in sight.
    r.element.scrollIntoView({ block: 'nearest' });
    if (file.size === 0 && kind === KIND_FILE) { r.failed('The file is empty.'); continue; }
    if (file.size > MAX_FILE_SIZE) { r.failed('The file is larger than 1 GiB, the most this page drops.'); continue; }
    if (kind === KIND_NOTE && file.size > MAX_NOTE_BYTES) { r.failed('The note is longer than 1 MiB, the most a note holds.'); continue; }
    try {
      r.status('Encrypting…');
      const blob = await sealDrop(publicKey, file, (f) => r.progress(f / 2), kind);
      if (kind === KIND_NOTE) $('drop-note').value = '';
      r.status('Sending…');
      await post(blob, (f) => r.progress(0.5 + f / 2));
      r.done();
      dropped += 1;
    } catch (error) {
      r.failed(error.name === 'NotSupportedError'
        ? 'This browser cannot encrypt drops (it lacks X25519 in WebCrypto).'
        : error.message || String(error));
    }
  }
  send.disabled = false;
  $('drop-files').value = '';
  sharedFiles = [];
  showShared();
  $('drop-status').textContent = `${dropped} of ${files.length} dropped` +
    (dropped ? '; the vault takes them in at its next unlock.' : '.');
}

/** Fills the field from the fragment: at load, and when a new link changes only the fragment. */
async function readFragment() {
  let fragment = '';
  try { fragment = decodeURIComponent(location.hash.slice(1)); } catch { fragment = location.hash.slice(1); }
  showError('');
  if (!fragment) return;
  $('drop-code').value = fragment;
  if (!(await decodeDropCode(fragment))) showError('The link holds no valid drop code. Check it against the one the vault shows.');
}

/** Files shared to the installed page (Android's share sheet, docs/PHONE.md §W4.4), held
 * in this page's memory only until they are sealed. */
let sharedFiles = [];

function showShared() {
  const shown = $('drop-shared');
  shown.hidden = sharedFiles.length === 0;
  shown.textContent = sharedFiles.length === 1 ? '1 shared file is ready: enter the drop code and drop it.'
    : `${sharedFiles.length} shared files are ready: enter the drop code and drop them.`;
}

/** Takes the files of a share (`/drop?share=ID`) from the service worker that received the
 * share's post, then takes the id out of the address. */
async function takeShared() {
  const id = new URLSearchParams(location.search).get('share');
  if (!id) return;
  history.replaceState(null, '', '/drop' + location.hash);
  const worker = 'serviceWorker' in navigator ? (await navigator.serviceWorker.ready).active : null;
  const answer = worker && await new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (message) => resolve(message.data);
    worker.postMessage({ type: 'take', id }, [channel.port2]);
    setTimeout(() => resolve(null), 10_000);
  });
  if (!answer || !answer.files) {
    showError('The shared files were lost before this page opened; share them again.');
    return;
  }
  sharedFiles = answer.files;
  showShared();
}

/** The page is an installable app whose worker receives shares (§W4.1-§W4.2). */
async function registerWorker() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  try {
    await navigator.serviceWorker.register('/drop-sw.js', { scope: '/drop' });
  } catch {
    // Without the worker the page still drops what is chosen in it.
  }
}

// iOS has no share target for a web page: the picker reaches the photo library (§W4.8).
$('drop-ios').hidden = !/iPhone|iPad|iPod/.test(navigator.userAgent);
$('drop-form').addEventListener('submit', dropFiles);
window.addEventListener('hashchange', readFragment);
readFragment();
registerWorker().then(takeShared);

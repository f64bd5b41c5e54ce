// upload.js: uploads from the file picker and from files dropped anywhere on
// the page, two at a time, each with its own progress bar and its own error.

import { post, uploadFile } from './api.js';
import { bytes } from './format.js';
import { icon } from './icons.js';

const $ = (id) => document.getElementById(id);
const PARALLEL = 2;
// After a batch in which nothing failed, the panel goes away by itself (issue 16).
const AUTO_CLOSE_MS = 4000;

/**
 * What the panel says of a file that became the second half of an item already there (a
 * Live Photo's motion, or the RAW taken with a JPEG: docs/API.md, "Items"): the upload
 * answers with that item, whose own name is the other file's. Null for a file that is an
 * item of its own.
 */
function joinedMessage(file, item) {
  const companion = item?.companion;
  if (!companion || companion.name !== file.name || item.name === file.name || !item.name) return null;
  return 'Added to ' + item.name + (companion.role === 'motion' ? ' as its motion' : ' as its RAW');
}

export class Uploader {
  /** `target()` names the folder that receives uploads (null: top level); `onUploaded` runs after each import. */
  constructor({ target, canDrop, onUploaded, onSettled }) {
    this.target = target;
    this.canDrop = canDrop;
    this.onUploaded = onUploaded;
    this.onSettled = onSettled;
    this.queue = [];
    this.active = 0;
    this.tasks = [];

    const input = $('file-input');
    input.addEventListener('change', () => {
      this.add([...input.files]);
      input.value = '';
    });
    $('upload-close').addEventListener('click', () => this.dismiss());
    this.wireDrop();
  }

  pick() {
    $('file-input').click();
  }

  wireDrop() {
    const overlay = $('drop-overlay');
    let depth = 0;
    const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
    document.addEventListener('dragenter', (event) => {
      if (!carriesFiles(event) || !this.canDrop()) return;
      event.preventDefault();
      depth += 1;
      $('drop-text').textContent = 'Drop files to add them to ' + (this.target()?.name ? '“' + this.target().name + '”' : 'your vault');
      overlay.hidden = false;
    });
    document.addEventListener('dragover', (event) => {
      if (!carriesFiles(event) || !this.canDrop()) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    });
    document.addEventListener('dragleave', (event) => {
      if (!carriesFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) overlay.hidden = true;
    });
    document.addEventListener('drop', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      depth = 0;
      overlay.hidden = true;
      if (this.canDrop()) this.add([...event.dataTransfer.files]);
    });
  }

  add(files) {
    if (!files.length) return;
    clearTimeout(this.closeTimer);
    const folder = this.target();
    $('upload-panel').hidden = false;
    for (const file of files) {
      const task = { file, folderId: folder?.id ?? null, state: 'waiting', row: this.row(file) };
      this.tasks.push(task);
      this.queue.push(task);
      $('upload-list').append(task.row.element);
    }
    this.summarise();
    this.pump();
  }

  pump() {
    while (this.active < PARALLEL && this.queue.length) {
      const task = this.queue.shift();
      this.active += 1;
      this.run(task).finally(() => {
        this.active -= 1;
        this.summarise();
        this.pump();
        if (this.active === 0 && !this.queue.length) this.settled();
      });
    }
  }

  async run(task) {
    task.state = 'uploading';
    this.paint(task, 0, 'Uploading…');
    const note = await markdownNote(task.file);
    if (note) {
      // A Markdown file is a note, as a dropped one is: read, searched, edited here.
      try {
        const answer = await post('/api/notes', { title: note.title, body: note.body, folder: task.folderId });
        this.finish(task, 'done', 'Added as a note');
        this.onUploaded(answer.item ?? null);
      } catch (failure) {
        this.finish(task, 'failed', failure.message.charAt(0).toUpperCase() + failure.message.slice(1));
        if (failure.status === 401) this.cancelAll('Vault locked');
      }
      return;
    }
    const upload = uploadFile(task.file, task.folderId, (fraction) => {
      this.paint(task, fraction, fraction >= 1 ? 'Encrypting…' : Math.round(fraction * 100) + '%');
    });
    task.abort = upload.abort;
    try {
      const answer = await upload.promise;
      if (answer.duplicate) this.finish(task, 'duplicate', 'Already in the vault');
      else this.finish(task, 'done', joinedMessage(task.file, answer.item) ?? 'Added');
      this.onUploaded(answer.item ?? null);
    } catch (failure) {
      const reason = failure.status === 413 ? 'Too large to upload' : failure.message;
      this.finish(task, 'failed', reason.charAt(0).toUpperCase() + reason.slice(1));
      if (failure.status === 401) this.cancelAll('Vault locked');
    }
  }

  settled() {
    this.onSettled();
    clearTimeout(this.closeTimer);
    if (this.tasks.every((task) => task.state === 'done' || task.state === 'duplicate')) {
      this.closeTimer = setTimeout(() => this.dismiss(), AUTO_CLOSE_MS);
    }
  }

  finish(task, state, message) {
    task.state = state;
    this.paint(task, 1, message);
    if (state === 'failed') $('upload-list').prepend(task.row.element); // errors first, where they are seen
  }

  cancelAll(message) {
    for (const task of this.queue) this.finish(task, 'failed', message);
    this.queue = [];
    this.summarise();
  }

  /** Clears finished rows and hides the panel when nothing is left running. */
  dismiss() {
    this.tasks = this.tasks.filter((task) => {
      const over = task.state !== 'waiting' && task.state !== 'uploading';
      if (over) task.row.element.remove();
      return !over;
    });
    if (!this.tasks.length) $('upload-panel').hidden = true;
    this.summarise();
  }

  /** Drops everything (the vault locked). */
  reset() {
    clearTimeout(this.closeTimer);
    for (const task of this.tasks) task.abort?.();
    this.queue = [];
    this.tasks = [];
    $('upload-list').replaceChildren();
    $('upload-panel').hidden = true;
  }

  row(file) {
    const element = document.createElement('li');
    element.className = 'upload-row';
    element.dataset.state = 'waiting';
    const status = document.createElement('span');
    status.className = 'upload-icon';
    const name = document.createElement('span');
    name.className = 'upload-name';
    name.textContent = file.name;
    name.title = file.name;
    const meta = document.createElement('span');
    meta.className = 'upload-meta';
    meta.textContent = bytes(file.size);
    const bar = document.createElement('div');
    bar.className = 'upload-bar';
    bar.setAttribute('role', 'progressbar');
    bar.setAttribute('aria-label', 'Upload of ' + file.name);
    bar.setAttribute('aria-valuemin', '0');
    bar.setAttribute('aria-valuemax', '100');
    const fill = document.createElement('div');
    fill.className = 'upload-fill';
    bar.append(fill);
    const message = document.createElement('span');
    message.className = 'upload-message';
    message.textContent = 'Waiting';
    element.append(status, name, meta, bar, message);
    return { element, status, fill, bar, message, meta, size: bytes(file.size) };
  }

  paint(task, fraction, text) {
    const { element, status, fill, bar, message, meta, size } = task.row;
    element.dataset.state = task.state;
    meta.textContent = task.state === 'failed' ? size : size + ' · ' + text;
    fill.style.transform = 'scaleX(' + Math.max(0, Math.min(1, fraction)) + ')';
    bar.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
    message.textContent = text;
    const symbol = { done: 'done', duplicate: 'done', failed: 'alert' }[task.state];
    status.replaceChildren(...(symbol ? [icon(symbol)] : []));
  }

  summarise() {
    const added = this.tasks.filter((t) => t.state === 'done').length;
    const duplicates = this.tasks.filter((t) => t.state === 'duplicate').length;
    const failed = this.tasks.filter((t) => t.state === 'failed').length;
    const over = added + duplicates + failed;
    const running = this.tasks.length - over;
    const parts = [];
    if (running) parts.push('Uploading ' + (over + 1) + ' of ' + this.tasks.length);
    else parts.push(added + ' of ' + this.tasks.length + ' added');
    if (duplicates) parts.push(duplicates + ' already in the vault');
    if (failed) parts.push(failed + ' failed');
    $('upload-summary').textContent = this.tasks.length ? parts.join(' · ') : '';
    $('upload-title').textContent = running ? 'Uploading' : 'Uploads';
    $('upload-panel').dataset.busy = String(running > 0);
  }
}

/** The largest Markdown file taken as a note: a note's body limit (docs/API.md). */
const NOTE_BODY_LIMIT = 1 << 20;

/**
 * `file` as a note ({title, body}) when it is Markdown (`.md`, `.markdown`) that fits a
 * note and is UTF-8 text; null otherwise, and it is uploaded as a file. The title is the
 * file's name without its extension.
 */
async function markdownNote(file) {
  const match = /^(.*)\.(md|markdown)$/i.exec(file.name);
  if (!match || file.size > NOTE_BODY_LIMIT) return null;
  try {
    const body = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    return { title: match[1].trim() || null, body };
  } catch {
    return null; // not UTF-8: kept as the file it is
  }
}

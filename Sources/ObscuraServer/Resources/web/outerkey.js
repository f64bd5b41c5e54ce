// outerkey.js: the directory's outer key in the gallery (docs/API.md, "Outer key"):
// shown once after the first vault is made, a group of it typed back as `obscura init`
// asks, a printed recovery sheet, and its state in Settings. The key's text stays in
// the page only while the dialog or the sheet shows it.

import { get, post } from './api.js';
import { busy, openDialog, showError, toast } from './dialogs.js';

const $ = (id) => document.getElementById(id);
// Wrong answers before the key is shown again, as the CLI does.
const ATTEMPTS_BEFORE_SHOWING_AGAIN = 3;

/** The key's 24 words as numbered list items (the list's own numbers). */
function wordItems(words) {
  return words.split(' ').map((word) => {
    const item = document.createElement('li');
    item.textContent = word;
    return item;
  });
}

export class OuterKey {
  constructor() {
    this.dialog = $('outer-key-dialog');
    this.failures = 0;
    this.group = 0;
    $('outer-key-reveal').addEventListener('click', () => this.reveal());
    $('outer-key-written').addEventListener('click', () => this.askBack());
    $('outer-key-print').addEventListener('click', () => this.print());
    $('outer-key-check-form').addEventListener('submit', (event) => this.answer(event));
    $('outer-key-again').addEventListener('click', () => this.reveal());
    $('settings-outer-key-show').addEventListener('click', () => this.open());
    $('settings-outer-key-print').addEventListener('click', () => this.print());
    this.dialog.addEventListener('close', () => {
      this.forget();
      this.forgetSheet();
    });
    window.addEventListener('afterprint', () => this.forgetSheet());
  }

  /** After an unlock: a vault just created leads straight to the key; an unlock while
   * no copy is confirmed only says so. Nothing for a key file, itself the copy. */
  async remind({ created }) {
    let state;
    try {
      state = await get('/api/keys/outer');
    } catch {
      return; // locked again: nothing to confirm
    }
    // A key file is itself the copy: `serve` named it as it made it, and Settings does.
    if (state.kept !== 'keyring' || state.confirmed) return;
    // A gallery served beyond loopback never shows the key: only the reminder is useful.
    if (!state.shown) {
      toast('No copy of the outer key is confirmed yet: run obscura keys export outer on the computer that serves this gallery.', 'info', 12000);
      return;
    }
    if (created) {
      this.open();
    } else {
      toast('No copy of the outer key is confirmed yet.', 'info', 12000,
        { label: 'Write it down', run: () => this.open() });
    }
  }

  /** Opens the dialog at its first step: what the key is, the key still hidden. */
  open() {
    this.forget();
    this.step('intro');
    openDialog(this.dialog);
    $('outer-key-reveal').focus();
  }

  async reveal() {
    try {
      await busy($('outer-key-reveal'), 'Showing…', async () => this.show(await post('/api/keys/outer/show', {})));
    } catch (failure) {
      showError($('outer-key-error'), failure.message);
    }
  }

  show(exported) {
    this.group = exported.group;
    this.failures = 0;
    $('outer-key-text').textContent = exported.text;
    $('outer-key-words').replaceChildren(...wordItems(exported.words));
    this.step('shown');
    // The dialog starts at its top (a phone would scroll to the focused button first).
    this.dialog.scrollTop = 0;
    $('outer-key-written').focus({ preventScroll: true });
  }

  askBack() {
    // The key leaves the screen before the question, as the CLI clears its terminal.
    this.forgetShown();
    $('outer-key-question').textContent =
      'Type group ' + this.group + ' of the key (counting after OUTER) and its last group.';
    $('outer-key-answer').value = '';
    this.step('check');
    $('outer-key-answer').focus();
  }

  async answer(event) {
    event.preventDefault();
    const field = $('outer-key-answer');
    const error = $('outer-key-check-error');
    showError(error, '');
    // Two groups of four, read as leniently as the server reads them (FORMAT.md §4.3).
    if (field.value.replace(/[-\s]/g, '').length !== 8) {
      showError(error, 'Type 8 letters or digits: group ' + this.group + ' of the key, then its last group.');
      field.focus();
      return;
    }
    try {
      const state = await busy($('outer-key-check-submit'), 'Checking…',
        () => post('/api/keys/outer/verify', { answer: field.value, group: String(this.group) }));
      field.value = '';
      this.dialog.close('confirmed');
      toast(state.confirmed ? 'Confirmed: your copy of the outer key matches.' : 'Checked.');
      this.paintSettings(state);
    } catch (failure) {
      field.value = '';
      this.failures += 1;
      if (failure.status === 409) {
        showError(error, failure.message);
        $('outer-key-again').hidden = false;
      } else if (failure.status === 422 && this.failures < ATTEMPTS_BEFORE_SHOWING_AGAIN) {
        showError(error, failure.message);
        field.focus();
      } else if (failure.status === 422) {
        showError(error, 'That did not match ' + ATTEMPTS_BEFORE_SHOWING_AGAIN + ' times. Show the key again and check your copy.');
        $('outer-key-again').hidden = false;
      } else {
        showError(error, failure.message);
      }
    }
  }

  /** The recovery sheet: the key's words and text on a page of its own, printed from
   * this tab (nothing is downloaded), and cleared once printing is done. */
  async print() {
    try {
      const exported = await post('/api/keys/outer/show', {});
      this.group = exported.group;
      $('kit-text').textContent = exported.text;
      $('kit-words').replaceChildren(...wordItems(exported.words));
      $('kit-date').textContent = new Date().toLocaleDateString();
      document.body.classList.add('printing-kit');
      window.print();
    } catch (failure) {
      toast(failure.message, 'error');
    }
  }

  /** Settings' "Outer key" section: where the key is kept and whether a copy is confirmed. */
  async loadSettings() {
    const status = $('settings-outer-key-state');
    try {
      this.paintSettings(await get('/api/keys/outer'));
    } catch (failure) {
      status.textContent = failure.message;
      $('settings-outer-key-show').hidden = true;
      $('settings-outer-key-print').hidden = true;
    }
  }

  paintSettings(state) {
    const status = $('settings-outer-key-state');
    $('settings-outer-key-show').hidden = state.kept !== 'keyring' || !state.shown;
    $('settings-outer-key-print').hidden = state.kept === 'none' || !state.shown;
    $('settings-outer-key-show').textContent = state.confirmed ? 'Check my copy again' : 'Write it down and confirm';
    if (state.kept === 'keyring') {
      status.textContent = state.confirmed
        ? 'In this computer\'s keyring. A copy of it is confirmed.'
        : 'In this computer\'s keyring, and no copy of it is confirmed: if the keyring is lost, no vault here opens.';
      status.dataset.kind = state.confirmed ? 'ok' : 'warning';
      if (!state.shown) status.textContent += ' To see it, run obscura keys export outer on the computer that serves this gallery.';
    } else if (state.kept === 'file') {
      status.textContent = 'In the key file ' + state.path + '. Keep a copy of it apart from this computer and its backups.';
      status.dataset.kind = 'ok';
    } else {
      status.textContent = 'This directory has no outer key yet: run obscura migrate.';
      status.dataset.kind = 'warning';
    }
  }

  step(name) {
    for (const part of this.dialog.querySelectorAll('[data-step]')) part.hidden = part.dataset.step !== name;
    showError($('outer-key-error'), '');
    showError($('outer-key-check-error'), '');
    $('outer-key-again').hidden = true;
  }

  forgetShown() {
    $('outer-key-text').textContent = '';
    $('outer-key-words').replaceChildren();
  }

  forgetSheet() {
    document.body.classList.remove('printing-kit');
    $('kit-text').textContent = '';
    $('kit-words').replaceChildren();
  }

  forget() {
    this.forgetShown();
    $('outer-key-answer').value = '';
  }

  /** Everything of the key the page holds, at a lock. */
  forgetAll() {
    if (this.dialog.open) this.dialog.close('cancel');
    this.forget();
    this.forgetSheet();
  }
}

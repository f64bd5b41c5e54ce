// settings.js: the settings dialog: auto-lock delay, vault password, passkeys, outer key, backup, drop code, export.

import { csrfToken, get, loadSession, post, sessionTrouble } from './api.js';
import { BackupPanel } from './backup.js';
import { busy, openDialog, showError, toast } from './dialogs.js';
import { DropCodePanel } from './dropcode.js';
import { COVER_OWED, PasskeyPanel } from './passkeys.js';
import { attachStrength, WEAK_PASSWORD_MESSAGE } from './strength.js';

const $ = (id) => document.getElementById(id);

export class Settings {
  constructor({ onAutoLockChange, outerKey }) {
    this.outerKey = outerKey;
    this.strength = attachStrength($('pw-new'), 'vault');
    this.onAutoLockChange = onAutoLockChange;
    $('settings-button').addEventListener('click', () => this.open());
    for (const radio of document.querySelectorAll('input[name="autolock"]')) {
      radio.addEventListener('change', () => this.saveAutoLock(Number(radio.value)));
    }
    $('password-form').addEventListener('submit', (event) => this.changePassword(event));
    $('export-prepare').addEventListener('click', () => this.prepareExport());
    $('export-copy').addEventListener('click', () => this.copyExportPassword());
    $('export-form').addEventListener('submit', (event) => this.startExport(event));
    $('settings-dialog').addEventListener('close', () => {
      this.forgetPasswords();
      this.forgetExport();
      this.backup.shown(false);
      this.dropCode.clear();
    });
    this.backup = new BackupPanel();
    this.dropCode = new DropCodePanel();
    this.passkeys = new PasskeyPanel();
  }

  /** Empties every password field of the dialog: none stays in the page once it closes. */
  forgetPasswords() {
    for (const id of ['pw-current', 'pw-new', 'pw-confirm', 'passkey-password']) $(id).value = '';
  }

  /** At lock: nothing typed or listed here outlives the session (passwords, passkey names). */
  forget() {
    this.forgetPasswords();
    $('passkey-name').value = '';
    $('pw-remove-passkeys').checked = false;
    this.passkeys.forget();
    showError($('password-message'), '');
  }

  async open() {
    for (const id of ['pw-current', 'pw-new', 'pw-confirm', 'passkey-name', 'passkey-password']) $(id).value = '';
    $('pw-remove-passkeys').checked = false;
    this.strength.reset();
    $('autolock-status').textContent = '';
    this.passkeys.load();
    this.forgetExport();
    openDialog($('settings-dialog'));
    this.backup.shown(true);
    this.dropCode.load();
    this.outerKey.loadSettings();
    try {
      const settings = await get('/api/settings');
      this.paintAutoLock(settings.autoLockMinutes);
    } catch (failure) {
      $('autolock-status').textContent = failure.message;
    }
  }

  paintAutoLock(minutes) {
    for (const radio of document.querySelectorAll('input[name="autolock"]')) {
      radio.checked = Number(radio.value) === minutes;
    }
  }

  async saveAutoLock(minutes) {
    const status = $('autolock-status');
    try {
      const settings = await post('/api/settings', { autoLockMinutes: minutes });
      this.paintAutoLock(settings.autoLockMinutes);
      status.textContent = minutes === 0
        ? 'Saved. The vault locks as soon as you leave this tab.'
        : 'Saved. The vault locks after ' + minutes + (minutes === 1 ? ' minute' : ' minutes') + ' without use.';
      this.onAutoLockChange(settings.autoLockMinutes);
    } catch (failure) {
      status.textContent = 'Not saved: ' + failure.message;
    }
  }

  async changePassword(event) {
    event.preventDefault();
    const message = $('password-message');
    message.classList.remove('form-ok');
    const current = $('pw-current').value;
    const next = $('pw-new').value;
    if (!current || !next) return showError(message, 'Fill in both passwords.');
    if (next !== $('pw-confirm').value) return showError(message, 'The two new passwords differ.');
    if (next === current) return showError(message, 'The new password is the same as the current one.');
    if (!(await this.strength.ready())) {
      return showError(message, WEAK_PASSWORD_MESSAGE);
    }
    try {
      const allowWeak = this.strength.allowWeak();
      const removePasskeys = $('pw-remove-passkeys').checked ? 'true' : null;
      // The passkeys as they were: what a removal took away, to say so and to tell the browser.
      const before = removePasskeys ? await this.passkeys.current() : [];
      const answer = await busy($('password-submit'), 'Changing…', () => post('/api/password', { current, new: next, allowWeak, removePasskeys }));
      $('pw-remove-passkeys').checked = false;
      for (const id of ['pw-current', 'pw-new', 'pw-confirm']) $(id).value = '';
      this.strength.reset();
      message.classList.add('form-ok');
      if (removePasskeys && before.length) {
        this.passkeys.load();
        const names = before.map((p) => '"' + p.name + '" (Obscura · ' + p.tag + ')').join(', ');
        showError(message, 'Password changed. Removed ' + before.length + ' passkey' + (before.length === 1 ? '' : 's')
          + ': ' + names + '. They no longer unlock this vault; delete them in each authenticator\'s settings too.');
      } else {
        showError(message, 'Password changed. Use the new one from now on.');
      }
      if (answer?.coverOwed) message.textContent += ' ' + COVER_OWED;
    } catch (failure) {
      const text = sessionTrouble(failure) ?? (failure.status === 401 ? 'The current password is wrong.'
        : failure.status === 409 ? 'Choose another new password.'
        : failure.message);
      showError(message, text);
    }
  }

  async prepareExport() {
    showError($('export-error'), '');
    try {
      const answer = await busy($('export-prepare'), 'Preparing…', () => post('/api/export/password'));
      $('export-password').textContent = answer.password;
      $('export-password-field').value = answer.password;
      $('export-step-1').hidden = true;
      $('export-step-2').hidden = false;
    } catch (failure) {
      showError($('export-error'), failure.message);
    }
  }

  async copyExportPassword() {
    try {
      await navigator.clipboard.writeText($('export-password').textContent);
      toast('Export password copied');
    } catch {
      toast('Copying is not allowed here; select the password and copy it by hand.', 'error');
    }
  }

  /** A real form POST, so that the browser streams the export to a download. */
  async startExport(event) {
    event.preventDefault();
    try {
      const session = await loadSession(); // a locked vault would answer the form with JSON
      if (!session.unlocked) return;
    } catch (failure) {
      return showError($('export-error'), failure.message);
    }
    $('export-csrf').value = csrfToken();
    $('export-form').submit();
    toast('The export is downloading. Keep this tab open until it finishes.');
  }

  forgetExport() {
    $('export-password').textContent = '';
    $('export-password-field').value = '';
    $('export-csrf').value = '';
    $('export-step-1').hidden = false;
    $('export-step-2').hidden = true;
  }
}

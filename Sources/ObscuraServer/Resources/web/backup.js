// backup.js: the settings dialog's Backup section: the last backup's time and state, a
// running backup's progress, the wait after a change, and "Back up now"
// (/api/backup, docs/API.md "Backup"). While the dialog is closed, the settings button
// carries a mark when a backup runs or the last one failed.

import { get, post } from './api.js';
import { bytes, dateTime } from './format.js';

const $ = (id) => document.getElementById(id);

export class BackupPanel {
  constructor() {
    this.timer = null;
    this.open = false;
    for (const radio of document.querySelectorAll('input[name="backup-after"]')) {
      radio.addEventListener('change', () => this.saveAfter(Number(radio.value)));
    }
    $('backup-now').addEventListener('click', () => this.runNow());
  }

  /** Starts watching: every second while the dialog is open, every 30 s otherwise. */
  start() {
    this.refresh();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }

  shown(open) {
    this.open = open;
    $('backup-after-status').textContent = '';
    this.refresh();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), this.open ? 1000 : 30000);
  }

  async refresh() {
    try {
      this.paint(await get('/api/backup'));
      this.schedule();
    } catch (failure) {
      // Locked: the unlock page takes over, and starts this again after an unlock.
      if (failure.status === 401) return this.stop();
      $('backup-last').textContent = 'Backup state unavailable: ' + failure.message;
      this.schedule();
    }
  }

  paint(state) {
    $('backup-none').hidden = state.configured;
    $('backup-set').hidden = !state.configured;
    const button = $('settings-button');
    delete button.dataset.backup;
    if (!state.configured) return;
    $('backup-repository').textContent = state.repository;
    for (const radio of document.querySelectorAll('input[name="backup-after"]')) {
      radio.checked = Number(radio.value) === state.afterSeconds;
    }
    const last = state.last;
    const line = $('backup-last');
    line.classList.toggle('form-error', Boolean(last && !last.succeeded));
    if (!last) {
      line.textContent = 'No backup yet.';
    } else if (last.succeeded) {
      line.textContent = 'Last backup ' + dateTime(last.finished) + ': done, ' + bytes(last.addedBytes ?? 0) + ' added'
        + (last.snapshot ? ' (snapshot ' + last.snapshot + ')' : '') + '.';
    } else {
      line.textContent = 'Last backup ' + dateTime(last.finished) + ' failed: ' + last.message;
      button.dataset.backup = 'failed';
    }
    $('backup-progress').hidden = !state.running;
    $('backup-now').disabled = state.running;
    if (state.running) {
      button.dataset.backup = 'running';
      const p = state.progress;
      const fraction = p && p.totalBytes > 0 ? p.bytesDone / p.totalBytes : 0;
      $('backup-fill').style.transform = 'scaleX(' + Math.max(0, Math.min(1, fraction)) + ')';
      $('backup-bar').setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
      $('backup-progress-text').textContent = p
        ? 'Backing up: ' + bytes(p.bytesDone) + ' of ' + bytes(p.totalBytes) + ', ' + p.filesDone + ' of ' + p.totalFiles + ' files'
          + (p.secondsRemaining != null ? ', about ' + p.secondsRemaining + ' s left' : '')
        : 'Backing up: starting…';
    }
    $('backup-next').textContent = state.nextAt
      ? 'Next backup ' + (state.nextAt * 1000 <= Date.now() ? 'now' : 'at ' + dateTime(state.nextAt)) + ', after the last change.'
      : (state.afterSeconds === 0 && !state.running ? 'Backups run only when asked (or by obscura backup run).' : '');
  }

  async saveAfter(seconds) {
    const status = $('backup-after-status');
    try {
      await post('/api/backup/settings', { afterSeconds: seconds });
      status.textContent = seconds === 0 ? 'Saved. Backups run only when asked.'
        : 'Saved. A backup runs ' + (seconds / 60) + (seconds === 60 ? ' minute' : ' minutes') + ' after the last change.';
      this.refresh();
    } catch (failure) {
      status.textContent = 'Not saved: ' + failure.message;
    }
  }

  async runNow() {
    try {
      await post('/api/backup');
      $('backup-progress').hidden = false;
      $('backup-progress-text').textContent = 'Backing up: starting…';
      $('backup-now').disabled = true;
      this.refresh();
    } catch (failure) {
      $('backup-after-status').textContent = failure.message;
    }
  }
}

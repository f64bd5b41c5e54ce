// dropcode.js: the settings dialog's drop code: the vault's code (GET /api/drops/code),
// the drop page's link on this page's own origin, and a QR code of that link (qr.js), so
// that the owner can hand the code to someone who then adds to the vault without its
// password (docs/FORMAT.md §10.1).

import { get } from './api.js';
import { showError, toast } from './dialogs.js';
import { qrSVG } from './qr.js';
import { WatchPanel } from './watch.js';

const $ = (id) => document.getElementById(id);

export class DropCodePanel {
  constructor() {
    $('drop-code-copy').addEventListener('click', () => this.copy($('drop-code').textContent, 'Drop code copied'));
    $('drop-link-copy').addEventListener('click', () => this.copy($('drop-link').textContent, 'Drop link copied'));
    this.watch = new WatchPanel();
  }

  /** Asks for the code each time the dialog opens: only an unlocked session gets one. */
  async load() {
    this.clear();
    try {
      const answer = await get('/api/drops/code');
      // The link's fragment never reaches the server: the drop page reads it in the browser.
      // On loopback, the link and its QR code use the first origin a phone can reach
      // (the proxy's --origin, or the certificate's name), where the server has one.
      const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(window.location.hostname);
      const phone = loopback ? (answer.origins ?? [])[0] : null;
      const link = new URL(answer.link, phone ?? window.location.origin).href;
      $('drop-code').textContent = answer.code;
      $('drop-link').textContent = link;
      $('drop-qr').replaceChildren(qrSVG(link));
      // A loopback link opens nothing on a phone that scans it: say so.
      $('drop-link-local').hidden = !loopback || Boolean(phone);
      $('drop-link-phone').hidden = !phone;
      $('drop-code-body').hidden = false;
      this.watch.show(answer);
    } catch (failure) {
      showError($('drop-code-error'), failure.message);
    }
  }

  /** Forgets what was shown, so a locked page keeps nothing of it. */
  clear() {
    $('drop-code').textContent = '';
    $('drop-link').textContent = '';
    $('drop-qr').replaceChildren();
    $('drop-code-body').hidden = true;
    this.watch.clear();
    showError($('drop-code-error'), '');
  }

  async copy(text, done) {
    try {
      await navigator.clipboard.writeText(text);
      toast(done);
    } catch {
      toast('Copying is not allowed here; select the text and copy it by hand.', 'error');
    }
  }
}

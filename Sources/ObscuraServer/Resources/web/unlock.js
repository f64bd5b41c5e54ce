// unlock.js: the unlock page. One password field; "create a new vault" turns
// the same form into a create form. Nothing here hints at how many vaults or
// slots the directory holds.

import { post, sessionTrouble } from './api.js';
import { showError, toast } from './dialogs.js';
import { attachStrength, WEAK_PASSWORD_MESSAGE } from './strength.js';
import { NOT_OPENED, passkeysUnavailable, showUnavailable, unlockWithPasskey } from './passkeys.js';

const $ = (id) => document.getElementById(id);

export function createUnlockPage({ onUnlocked }) {
  const form = $('unlock-form');
  const password = $('unlock-password');
  const confirm = $('create-confirm');
  const submit = $('unlock-submit');
  const error = $('unlock-error');
  const notice = $('unlock-notice');
  let creating = false;
  const strength = attachStrength(password, 'vault', { active: () => creating });
  let waitTimer = 0;
  let waitUntil = 0;
  // Sent during the wrong-password delay: kept, and sent when the delay ends (issue 16).
  let queued = false;
  // What failed, said above the wait when it was not a typed password (a passkey).
  let waitReason = '';

  function setMode(create) {
    creating = create;
    strength.reset();
    $('unlock-title').textContent = create ? 'Create a new vault' : 'Unlock your vault';
    $('unlock-lead').textContent = create
      ? 'Choose a password. Nobody can reset it: with this directory\'s outer key, it is the only way in.'
      : 'Enter your password to see your photos.';
    $('create-confirm-field').hidden = !create;
    $('unlock-passkey-row').hidden = create || Boolean(passkeysUnavailable());
    confirm.required = create;
    password.autocomplete = create ? 'new-password' : 'current-password';
    $('unlock-alt-text').textContent = create ? 'Already have a vault?' : 'New here?';
    $('create-toggle').textContent = create ? 'Unlock instead' : 'Create a new vault';
    showError(error, '');
    updateButton();
    password.focus();
  }

  // During the delay the button stays enabled for the form (a disabled default button
  // would swallow Enter) but says it is waiting; a submit then queues the password.
  function updateButton() {
    const wait = Math.ceil((waitUntil - Date.now()) / 1000);
    if (wait > 0) {
      submit.setAttribute('aria-disabled', 'true');
      submit.textContent = 'Try again in ' + wait + ' s';
      showError(error, queued
        ? 'Too many wrong passwords. Your password will be tried in ' + wait + ' s.'
        : (waitReason || 'Too many wrong passwords.') + ' Wait ' + wait + ' s before trying again.');
      return;
    }
    waitReason = '';
    submit.removeAttribute('aria-disabled');
    submit.disabled = false;
    submit.textContent = creating ? 'Create vault' : 'Unlock';
    if (waitTimer) {
      clearInterval(waitTimer);
      waitTimer = 0;
      showError(error, '');
      if (queued) {
        queued = false;
        form.requestSubmit();
      } else {
        notice.textContent = 'The wait is over. You can try again now.';
        notice.hidden = false;
      }
    }
  }

  function startWait(seconds) {
    waitUntil = Date.now() + seconds * 1000;
    clearInterval(waitTimer);
    waitTimer = setInterval(updateButton, 250);
    updateButton();
  }

  async function onSubmit(event) {
    event.preventDefault();
    if (submit.disabled) return;
    if (waitUntil > Date.now()) {
      if (password.value) queued = true;
      updateButton();
      return;
    }
    showError(error, '');
    notice.hidden = true;
    if (!password.value) {
      showError(error, 'Enter a password.');
      password.focus();
      return;
    }
    if (creating && password.value !== confirm.value) {
      showError(error, 'The two passwords differ.');
      confirm.focus();
      return;
    }
    if (creating && !(await strength.ready())) {
      showError(error, WEAK_PASSWORD_MESSAGE);
      return;
    }
    submit.disabled = true;
    submit.classList.add('busy');
    submit.textContent = creating ? 'Creating…' : 'Unlocking…';
    try {
      const answer = await post(creating ? '/api/vaults' : '/api/unlock',
        creating ? { password: password.value, allowWeak: strength.allowWeak() } : { password: password.value });
      password.value = '';
      confirm.value = '';
      strength.reset();
      notice.hidden = true;
      submit.classList.remove('busy');
      updateButton();
      onUnlocked({ created: creating });
      // What the unlock took in from the drop inbox, refusals included: said once.
      // Long enough to read a refusal's reasons.
      if (answer?.drops) toast(answer.drops, answer.dropsRefused ? 'error' : 'info', answer.dropsRefused ? 15000 : 8000);
      return;
    } catch (failure) {
      submit.classList.remove('busy');
      updateButton();
      if (failure.status === 429) {
        startWait(failure.retryAfter ?? 2);
      } else if (sessionTrouble(failure)) {
        // Refused before any password was tried: never call it wrong.
        showError(error, sessionTrouble(failure));
      } else if (failure.status === 401) {
        showError(error, 'Wrong password.');
        password.select();
        // The server says when this failure started the delay.
        if (failure.retryAfter) startWait(failure.retryAfter);
      } else if (failure.status === 409 && creating) {
        showError(error, 'A new vault cannot be made with this password. Choose another one.');
      } else {
        showError(error, failure.message);
      }
    }
  }

  form.addEventListener('submit', onSubmit);
  $('create-toggle').addEventListener('click', () => setMode(!creating));

  // A passkey instead of the password (docs/PASSKEY.md §P5.5): offered where the browser
  // has WebAuthn and the page is reached by name; at an address, the page says where.
  showUnavailable($('unlock-passkey-hint'));
  if (!window.PublicKeyCredential) $('unlock-passkey-hint').hidden = true;
  $('unlock-passkey').addEventListener('click', async () => {
    const button = $('unlock-passkey');
    if (waitUntil > Date.now()) return updateButton();
    showError(error, '');
    notice.hidden = true;
    button.disabled = true;
    try {
      const answer = await unlockWithPasskey();
      password.value = '';
      onUnlocked({ created: false });
      if (answer?.drops) toast(answer.drops, answer.dropsRefused ? 'error' : 'info', answer.dropsRefused ? 15000 : 8000);
    } catch (failure) {
      if (failure.status === 429) {
        startWait(failure.retryAfter ?? 2);
      } else if (sessionTrouble(failure)) {
        showError(error, sessionTrouble(failure));
      } else if (failure.status === 401) {
        showError(error, NOT_OPENED);
        // The wait is shared with passwords; the passkey's refusal stays said above it.
        waitReason = NOT_OPENED;
        if (failure.retryAfter) startWait(failure.retryAfter);
      } else {
        showError(error, failure.message);
      }
      password.focus();
    } finally {
      button.disabled = false;
    }
  });

  return {
    /** Shows the page; `message` explains why it came back (auto-lock, say); `create`
     * leads with the create form. */
    show(message = '', create = false) {
      queued = false;
      notice.textContent = message;
      notice.hidden = !message;
      setMode(create);
    },
  };
}

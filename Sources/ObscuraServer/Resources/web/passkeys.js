// passkeys.js: unlock with a passkey (docs/PASSKEY.md §P5): the WebAuthn ceremonies
// with the PRF extension, the unlock button, and the settings section that lists, adds
// and removes a vault's passkeys. The server never lists credential ids before an
// unlock, so the get() offers every passkey for this site and the server's sweep finds
// which vault, if any, the answer opens.

import { post, get } from './api.js';
import { openDialog, showError } from './dialogs.js';

/** base64url without padding of an ArrayBuffer or view. */
export function b64u(buffer) {
  const bytes = new Uint8Array(buffer instanceof ArrayBuffer ? buffer : buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url text. */
export function fromB64u(text) {
  const plain = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

const NO_PRF = 'This authenticator cannot unlock Obscura (it has no PRF support). Use another, or keep the password.';
export const NOT_OPENED = 'This passkey did not open a vault. If you keep several Obscura directories, choose another passkey.';
/** Said when the browser's ceremony ended without an answer: nothing reached the server. */
export const NONE_USED = 'No passkey was used (cancelled, not verified, or none for this site). Unlock with your password.';
/** Said when a change stands but the whole commit after it failed (docs/API.md, "Passkeys"). */
export const COVER_OWED = 'But overwriting the old copy of the vault\'s key block failed twice (is the disk full or failing?): until a whole '
  + 'rewrite succeeds, a copy of this folder holds the previous key block. Once the disk is fixed, change the password again '
  + '(the same one will do): that rewrites it.';

/** Whether the page was reached at an IP address, which WebAuthn refuses as a relying party. */
function atAnAddress() {
  const host = location.hostname;
  return /^[0-9.]+$/.test(host) || host.includes(':') || host.startsWith('[');
}

/** The same server by name, where passkeys work: localhost at this port and scheme. */
export function localhostAddress() {
  return location.protocol + '//localhost' + (location.port ? ':' + location.port : '') + '/';
}

/** Why passkeys cannot be used on this page, or '' when they can. */
export function passkeysUnavailable() {
  if (!window.PublicKeyCredential || !navigator.credentials) return 'This browser cannot unlock with a passkey.';
  if (atAnAddress()) {
    return 'To use a passkey, open the link `obscura serve` printed (it starts with ' + localhostAddress()
      + ') instead of this address.';
  }
  return '';
}

/**
 * Fills `element` with the reason passkeys cannot be used here, the localhost address
 * as a link when that is the way (review UX7). Returns the reason, or ''.
 */
export function showUnavailable(element) {
  const reason = passkeysUnavailable();
  element.replaceChildren();
  element.hidden = !reason;
  if (!reason) return '';
  if (atAnAddress() && window.PublicKeyCredential) {
    const link = document.createElement('a');
    link.href = localhostAddress();
    link.textContent = localhostAddress();
    element.append('To use a passkey, open the link `obscura serve` printed (it starts with ', link, ') instead of this address.');
  } else {
    element.textContent = reason;
  }
  return reason;
}

/** The page's words for a refused enrolment or check (review UX4). */
function enrolRefusal(failure, name) {
  if (failure.status === 401) return 'Wrong password.';
  if (failure.status === 422 && /passkey name/.test(failure.message)) {
    return 'Choose another name: 1 to 64 characters, without invisible or control characters.';
  }
  const reason = failure.body?.reason;
  if (reason === 'nameTaken') return 'You already have a passkey named "' + name + '". Choose another name.';
  if (reason === 'limit') return 'This vault has four passkeys, the most it keeps. Remove one first.';
  if (reason === 'opensAVault') return 'This passkey already unlocks a vault here. Use another authenticator.';
  return failure.message;
}

/** How the authenticator lists a credential, and where. */
function listedAs(tag) {
  return '"Obscura · ' + tag + '" (for ' + location.hostname + ')';
}

/** The PRF result of a ceremony's extension outputs, or null. */
function prfResult(credential) {
  return credential.getClientExtensionResults()?.prf?.results?.first ?? null;
}

/** Zeroes the page's copy of a PRF output once sent (the browser's own copies are out of reach). */
function wipe(buffer) {
  if (buffer) new Uint8Array(buffer instanceof ArrayBuffer ? buffer : buffer.buffer).fill(0);
}

/** Tells the browser a credential is gone, where it offers that (WebAuthn signal methods). */
function signalUnknown(rpId, rawId) {
  try {
    PublicKeyCredential.signalUnknownCredential?.({ rpId, credentialId: typeof rawId === 'string' ? rawId : b64u(rawId) })?.catch?.(() => {});
  } catch {
    // Not offered: nothing to do.
  }
}

/**
 * Unlocks with a passkey: a discoverable get() with the directory's PRF input, and the
 * answer sent as a password would be. Resolves to the server's answer; rejects with an
 * Error whose `status` is the server's (401, 429 with `retryAfter`) or with a message
 * for the user when nothing was sent.
 */
export async function unlockWithPasskey() {
  const begin = await post('/api/passkey/begin', { kind: 'get' });
  let assertion;
  try {
    assertion = await navigator.credentials.get({ publicKey: {
      rpId: begin.rpId, challenge: fromB64u(begin.challenge), allowCredentials: [], userVerification: 'required',
      timeout: 120000, extensions: { prf: { eval: { first: fromB64u(begin.input) } } },
    } });
  } catch {
    // Cancelled, timed out, not verified, or no passkey for this site: nothing is sent,
    // so nothing was refused (review UX10).
    throw new Error(NONE_USED);
  }
  const prf = prfResult(assertion);
  if (!prf) throw new Error(NO_PRF);
  const response = assertion.response;
  const body = {
    prf: b64u(prf), rawId: b64u(assertion.rawId), authenticatorData: b64u(response.authenticatorData),
    clientDataJSON: b64u(response.clientDataJSON), signature: b64u(response.signature),
    userHandle: response.userHandle ? b64u(response.userHandle) : null,
  };
  wipe(prf);
  try {
    return await post('/api/unlock/passkey', body);
  } finally {
    body.prf = '';
  }
}

/** The settings section: the vault's passkeys, adding one, removing one. */
export class PasskeyPanel {
  constructor() {
    this.box = document.getElementById('passkey-list-box');
    this.list = document.getElementById('passkey-list');
    this.form = document.getElementById('passkey-form');
    this.message = document.getElementById('passkey-message');
    this.form.addEventListener('submit', (event) => this.add(event));
    document.getElementById('passkey-remove-form').addEventListener('submit', (event) => this.confirmRemove(event));
    document.getElementById('passkey-remove-dialog').addEventListener('close', () => {
      document.getElementById('passkey-remove-password').value = '';
    });
  }

  say(text, ok = false) {
    this.message.textContent = text;
    this.message.hidden = !text;
    this.message.classList.toggle('form-ok', ok);
  }

  /** Empties the list and the message (at lock). */
  forget() {
    this.list.replaceChildren();
    this.box.hidden = true;
    document.getElementById('passkey-remove-dialog').close();
    this.say('');
  }

  /** The vault's passkeys now, or [] when they cannot be read. */
  async current() {
    try {
      return (await get('/api/passkeys')).passkeys;
    } catch {
      return [];
    }
  }

  async load() {
    this.say('');
    const unavailable = showUnavailable(document.getElementById('passkeys-unavailable'));
    this.form.hidden = Boolean(unavailable);
    document.getElementById('passkey-add-title').hidden = Boolean(unavailable);
    // A passkey belongs to the name it was made at (its relying party): one made at
    // localhost does not open the gallery through a proxy's name, nor the reverse.
    const others = location.hostname === 'localhost'
      ? 'not this computer\'s name or address, nor a proxy in front of it'
      : 'not localhost, another name of this computer, nor a proxy in front of it';
    document.getElementById('passkey-origin-note').textContent =
      `A passkey added here works when the gallery is opened at ${location.hostname}, and at no other address ` +
      `(${others}): add one at each address you use.`;
    try {
      this.paint((await get('/api/passkeys')).passkeys);
    } catch (failure) {
      this.say(failure.message);
    }
  }

  paint(passkeys) {
    this.list.replaceChildren();
    this.box.hidden = passkeys.length === 0;
    for (const passkey of passkeys) {
      const item = document.createElement('li');
      item.className = 'passkey-item';
      item.dataset.name = passkey.name;
      const text = document.createElement('span');
      const date = new Date(passkey.createdAt).toLocaleDateString();
      text.textContent = passkey.name + ' · Obscura · ' + passkey.tag + ' · added ' + date;
      // The CLI's notes, with what each means (review UX8).
      const notes = [];
      if (passkey.synced) notes.push('Synced: it can unlock from every device signed in to that account.');
      if (!passkey.enrolledAfterPasswordChange) {
        notes.push('Added before the last password change: remove it if the password was changed because of a leak.');
      }
      if (notes.length) {
        const small = document.createElement('span');
        small.className = 'passkey-notes';
        small.textContent = notes.join(' ');
        text.append(small);
      }
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'btn btn-small';
      remove.textContent = 'Remove';
      remove.setAttribute('aria-label', 'Remove ' + passkey.name);
      remove.addEventListener('click', () => this.remove(passkey));
      item.append(text, ' ', remove);
      this.list.append(item);
    }
    document.getElementById('passkey-add').disabled = passkeys.length >= 4;
  }

  /** Asks before removing, with the password in the dialog itself (review UX6). */
  remove(passkey) {
    this.removing = passkey;
    document.getElementById('passkey-remove-title').textContent = 'Remove "' + passkey.name + '"?';
    document.getElementById('passkey-remove-text').textContent = 'It will no longer unlock this vault. '
      + 'Its authenticator lists it as ' + listedAs(passkey.tag) + '.';
    openDialog(document.getElementById('passkey-remove-dialog'));
    document.getElementById('passkey-remove-password').focus();
  }

  async confirmRemove(event) {
    event.preventDefault();
    const passkey = this.removing;
    const dialog = document.getElementById('passkey-remove-dialog');
    const field = document.getElementById('passkey-remove-password');
    const error = document.getElementById('passkey-remove-error');
    const password = field.value;
    if (!password) {
      field.focus();
      return showError(error, 'Enter the vault password.');
    }
    const button = document.getElementById('passkey-remove-submit');
    button.disabled = true;
    try {
      const answer = await post('/api/passkeys/remove', { password, name: passkey.name });
      dialog.close('done');
      signalUnknown(location.hostname, answer.credentialId);
      this.say('Removed "' + passkey.name + '". In your authenticator\'s settings, delete ' + listedAs(passkey.tag)
        + ' too, if it is still listed.' + (answer.coverOwed ? ' ' + COVER_OWED : ''), true);
      this.paint((await get('/api/passkeys')).passkeys);
    } catch (failure) {
      if (failure.status === 401) field.value = '';
      showError(error, failure.status === 401 ? 'Wrong password.' : failure.message);
    } finally {
      button.disabled = false;
    }
  }

  password() {
    const field = document.getElementById('passkey-password');
    const value = field.value;
    if (!value) {
      this.say('Enter the vault password first.');
      field.focus();
    }
    return value;
  }

  async add(event) {
    event.preventDefault();
    const name = document.getElementById('passkey-name').value.trim();
    if (!name) return this.say('Give the passkey a name, such as the device it is on.');
    const password = this.password();
    if (!password) return;
    const button = document.getElementById('passkey-add');
    button.disabled = true;
    let created = null;
    try {
      // The password, the name and the room first: a mistake found after the two
      // prompts would cost them and leave a credential behind (review UX4).
      this.say('Checking…', true);
      try {
        await post('/api/passkeys/check', { password, name });
      } catch (failure) {
        if (failure.status === 401) document.getElementById('passkey-password').value = '';
        return this.say(enrolRefusal(failure, name));
      }
      this.say('Follow your browser: it asks for your fingerprint, face, PIN or security key, twice.');
      const begin = await post('/api/passkey/begin', { kind: 'create' });
      try {
        created = await navigator.credentials.create({ publicKey: {
          rp: { id: begin.rpId, name: 'Obscura' },
          user: { id: fromB64u(begin.userId), name: 'Obscura', displayName: 'Obscura · ' + begin.tag },
          challenge: fromB64u(begin.challenge),
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -8 }],
          authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
          attestation: 'none', excludeCredentials: [], timeout: 120000,
          extensions: { prf: { eval: { first: fromB64u(begin.input) } } },
        } });
      } catch (failure) {
        // WebAuthn's errors (review UX9): InvalidStateError is a credential already on
        // this authenticator; a full security key reports NotAllowedError, as a cancel does.
        return this.say(failure?.name === 'NotSupportedError' ? 'This authenticator cannot unlock Obscura.'
          : failure?.name === 'InvalidStateError' ? 'This authenticator already holds this passkey.'
          : 'No passkey was made: it was cancelled, it timed out, or the authenticator refused (a security key may be full).');
      }
      if (created.getClientExtensionResults()?.prf?.enabled !== true) {
        signalUnknown(begin.rpId, created.rawId);
        return this.say(NO_PRF);
      }
      // A second user verification, always: its PRF result is the one the vault keeps.
      const check = await post('/api/passkey/begin', { kind: 'get' });
      let assertion;
      try {
        assertion = await navigator.credentials.get({ publicKey: {
          rpId: check.rpId, challenge: fromB64u(check.challenge), userVerification: 'required', timeout: 120000,
          allowCredentials: [{ type: 'public-key', id: created.rawId }],
          extensions: { prf: { eval: { first: fromB64u(check.input) } } },
        } });
      } catch {
        signalUnknown(begin.rpId, created.rawId);
        return this.say('The passkey was not confirmed. Nothing was added; in your authenticator\'s settings, delete '
          + listedAs(begin.tag) + ' if it is listed.');
      }
      const prf = prfResult(assertion);
      const early = prfResult(created);
      if (!prf || (early && b64u(early) !== b64u(prf))) {
        signalUnknown(begin.rpId, created.rawId);
        return this.say(prf ? 'This authenticator gave two different answers; it cannot unlock Obscura.' : NO_PRF);
      }
      const response = created.response;
      const answer = assertion.response;
      const body = {
        password, name, prf: b64u(prf),
        createRawId: b64u(created.rawId), createClientDataJSON: b64u(response.clientDataJSON),
        createAuthenticatorData: b64u(response.getAuthenticatorData()), createPublicKey: b64u(response.getPublicKey()),
        createAlgorithm: String(response.getPublicKeyAlgorithm()),
        getRawId: b64u(assertion.rawId), getAuthenticatorData: b64u(answer.authenticatorData),
        getClientDataJSON: b64u(answer.clientDataJSON), getSignature: b64u(answer.signature),
        getUserHandle: answer.userHandle ? b64u(answer.userHandle) : null,
      };
      wipe(prf);
      wipe(early);
      let enrolled;
      try {
        enrolled = await post('/api/passkeys', body);
      } catch (failure) {
        signalUnknown(begin.rpId, created.rawId);
        return this.say(enrolRefusal(failure, name) + ' Nothing was added; in your authenticator\'s settings, delete '
          + listedAs(begin.tag) + ' if it is still listed.');
      } finally {
        body.prf = '';
        body.password = '';
      }
      document.getElementById('passkey-name').value = '';
      document.getElementById('passkey-password').value = '';
      this.say('Added "' + name + '" (listed in the authenticator as ' + listedAs(begin.tag) + '). '
        + 'Lock the vault and try "Unlock with a passkey".' + (enrolled?.coverOwed ? ' ' + COVER_OWED : ''), true);
      this.paint((await get('/api/passkeys')).passkeys);
    } catch (failure) {
      this.say(failure.message);
    } finally {
      button.disabled = this.list.children.length >= 4;
    }
  }
}

// strength.js: the live strength estimate under a new-password field. The server
// estimates (POST /api/password-strength, one estimator for the CLI, the page and
// the server's own check); the page asks at most every 300 ms while typing. A weak
// password must be confirmed with a checkbox before its form may be sent, and the
// server refuses it without that confirmation too (docs/API.md, "Password strength").

import { post } from './api.js';
import { showError } from './dialogs.js';

const DEBOUNCE_MS = 300;
// The meter's value by class, out of 4: very weak shows a sliver, so that the bar is
// never mistaken for "not measured yet".
const LEVELS = { veryWeak: 0.4, weak: 1, fair: 2, strong: 3, veryStrong: 4 };

let counter = 0;

/** What a form says when its weak password was sent unconfirmed; taken away by the next
 * estimate that needs no confirmation, so that it never stands under a strong one. */
export const WEAK_PASSWORD_MESSAGE = 'This password is weak. Choose a stronger one, or tick “Use this weak password anyway”.';

/**
 * Adds a meter, a line of text and a confirmation checkbox after `input`'s field.
 * `purpose` is "vault", "folder" or "export" (the key derivation it is judged at);
 * `active` says whether the field takes a new password now (the unlock form does
 * only in its create mode).
 */
export function attachStrength(input, purpose, { active = () => true } = {}) {
  const id = 'strength-' + (++counter);
  const box = document.createElement('div');
  box.className = 'strength stack';
  box.id = id;
  box.hidden = true;
  const meter = document.createElement('meter');
  meter.min = 0;
  meter.max = 4;
  meter.low = 1.5;
  meter.high = 2.5;
  meter.optimum = 4;
  meter.id = id + '-meter';
  meter.setAttribute('aria-label', 'Password strength');
  const text = document.createElement('p');
  text.className = 'hint strength-text';
  text.id = id + '-text';
  text.setAttribute('aria-live', 'polite');
  const confirm = document.createElement('label');
  confirm.className = 'check strength-confirm';
  confirm.hidden = true;
  const checkbox = document.createElement('input');
  checkbox.type = 'checkbox';
  checkbox.id = id + '-confirm';
  checkbox.setAttribute('aria-describedby', text.id);
  const span = document.createElement('span');
  span.textContent = 'Use this weak password anyway';
  confirm.append(checkbox, span);
  box.append(meter, text, confirm);
  (input.closest('.field-row') ?? input.closest('.field') ?? input).after(box);
  input.setAttribute('aria-describedby', text.id);

  let timer = 0;
  let latest = null; // the estimate of the value now in the field
  let pending = null; // the request for it, while it runs
  let generation = 0;

  function paint(answer) {
    box.hidden = !answer;
    if (!answer) return;
    meter.value = LEVELS[answer.strength] ?? 0;
    box.dataset.strength = answer.strength;
    const weakness = answer.weakness ? ' Found: ' + answer.weakness + '.' : '';
    // In time and words: a power of ten means nothing to most people; it stays in the
    // tooltip for those it does.
    text.textContent = 'Strength: ' + answer.label + '.' + weakness + ' One GPU would need ' + answer.time + ' to find it.';
    text.title = 'About 10^' + answer.log10Guesses.toFixed(1) + ' guesses';
    confirm.hidden = !answer.needsConfirmation;
    if (!answer.needsConfirmation) {
      checkbox.checked = false;
      for (const error of input.closest('form')?.querySelectorAll('.form-error') ?? []) {
        if (error.textContent === WEAK_PASSWORD_MESSAGE) showError(error, '');
      }
    }
  }

  function estimate() {
    clearTimeout(timer);
    timer = 0;
    const value = input.value;
    const mine = ++generation;
    if (!value) {
      latest = null;
      pending = null;
      paint(null);
      return Promise.resolve(null);
    }
    pending = post('/api/password-strength', { password: value, purpose })
      .then((answer) => {
        if (mine === generation) {
          latest = answer;
          paint(answer);
        }
        return answer;
      })
      .catch(() => null)
      .finally(() => { if (mine === generation) pending = null; });
    return pending;
  }

  input.addEventListener('input', () => {
    generation++;
    latest = null;
    checkbox.checked = false;
    clearTimeout(timer);
    timer = 0;
    if (active()) timer = setTimeout(estimate, DEBOUNCE_MS);
  });

  return {
    /**
     * Resolves true when the password may be sent: it is not weak, or the weak one is
     * confirmed. Otherwise shows the checkbox, focuses it and resolves false.
     */
    async ready() {
      const answer = latest ?? (pending && !timer ? await pending : await estimate());
      if (!answer || !answer.needsConfirmation || checkbox.checked) return true;
      confirm.hidden = false;
      checkbox.focus();
      return false;
    },
    /** The request's confirmation field: "true" when a weak password was confirmed. */
    allowWeak() {
      return latest?.needsConfirmation && checkbox.checked ? 'true' : undefined;
    },
    /** Clears the meter (the field was emptied or the form closed). */
    reset() {
      clearTimeout(timer);
      generation++;
      latest = null;
      pending = null;
      checkbox.checked = false;
      paint(null);
    },
  };
}

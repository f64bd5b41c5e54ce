// password.js: a show/hide button on every password field of the page. A shown
// password goes back to hidden before its form is sent and whenever the page
// locks, so no browser keeps it as typed text (autofill history, a screenshot
// of the next screen).

import { icon } from './icons.js';

/** Adds the button to each `input[type=password]` under `root`. */
export function addRevealButtons(root = document) {
  for (const input of root.querySelectorAll('input[type="password"]')) {
    if (input.closest('.password-field')) continue;
    const wrapper = document.createElement('span');
    wrapper.className = 'password-field';
    input.replaceWith(wrapper);
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'reveal';
    button.setAttribute('aria-controls', input.id);
    wrapper.append(input, button);
    paint(input, button, false);
    button.addEventListener('click', () => {
      const show = input.type === 'password';
      input.type = show ? 'text' : 'password';
      paint(input, button, show);
      input.focus();
    });
    input.form?.addEventListener('submit', () => hideAll(input.form), { capture: true });
  }
}

/** Hides every shown password under `root`. */
export function hideAll(root = document) {
  for (const button of root.querySelectorAll('.password-field .reveal')) {
    const input = button.previousElementSibling;
    if (input.type !== 'password') {
      input.type = 'password';
      paint(input, button, false);
    }
  }
}

function paint(input, button, shown) {
  const label = (input.labels?.[0]?.textContent ?? 'password').toLowerCase();
  button.setAttribute('aria-label', (shown ? 'Hide ' : 'Show ') + label);
  button.setAttribute('aria-pressed', String(shown));
  button.title = shown ? 'Hide' : 'Show';
  button.replaceChildren(icon(shown ? 'eyeOff' : 'eye'));
}

// dialogs.js: modal <dialog>s, the confirm question, form errors and the toast.

const $ = (id) => document.getElementById(id);

/** Opens a <dialog> modally; its [data-close] buttons and Esc close it. */
export function openDialog(dialog) {
  if (!dialog.dataset.wired) {
    dialog.dataset.wired = '1';
    for (const button of dialog.querySelectorAll('[data-close]')) {
      button.addEventListener('click', () => dialog.close('cancel'));
    }
    dialog.addEventListener('click', (event) => {
      if (event.target === dialog) dialog.close('cancel'); // a click on the backdrop
    });
  }
  for (const error of dialog.querySelectorAll('.form-error')) showError(error, '');
  if (!dialog.open) dialog.showModal();
}

export function closeAllDialogs() {
  for (const dialog of document.querySelectorAll('dialog[open]')) dialog.close('cancel');
}

/** Shows `message` in a .form-error element, or hides it when empty. */
export function showError(element, message) {
  element.textContent = message;
  element.hidden = !message;
}

/** Asks a yes/no question; resolves true when the user confirms. */
export function confirmAction({ title, text, action }) {
  const dialog = $('confirm-dialog');
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-submit').textContent = action;
  return new Promise((resolve) => {
    const form = $('confirm-form');
    const onSubmit = (event) => {
      event.preventDefault();
      dialog.close('confirm');
    };
    const onClose = () => {
      form.removeEventListener('submit', onSubmit);
      resolve(dialog.returnValue === 'confirm');
    };
    form.addEventListener('submit', onSubmit);
    dialog.addEventListener('close', onClose, { once: true });
    dialog.returnValue = '';
    openDialog(dialog);
    // Focus starts on Cancel: Enter or Space on a dialog just opened must not destroy.
    dialog.querySelector('[data-close]').focus();
  });
}

let toastTimer = 0;

/** A short message at the bottom of the screen. */
export function toast(message, kind = 'info', shownFor = kind === 'error' ? 6000 : 3500, action = null) {
  const element = $('toast');
  element.textContent = message;
  // An action the message offers (Undo): one button, which hides the toast when used.
  if (action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'toast-action';
    button.textContent = action.label;
    button.addEventListener('click', () => {
      element.hidden = true;
      action.run();
    });
    element.append(' ', button);
  }
  element.dataset.kind = kind;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { element.hidden = true; }, shownFor);
}

/** Puts a button into its busy state (label swapped, disabled) while `work` runs. */
export async function busy(button, label, work) {
  const original = button.textContent;
  button.disabled = true;
  button.classList.add('busy');
  button.textContent = label;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.classList.remove('busy');
    button.textContent = original;
  }
}

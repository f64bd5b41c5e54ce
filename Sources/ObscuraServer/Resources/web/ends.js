// ends.js: items that end (issue 19): deleted for good at a time or after so many
// views. The text that says when, and the dialog that gives an end. The server holds the
// rules: it counts views, refuses a view-limited item's bytes outside a counted view, and
// deletes what ended.

import { post } from './api.js';
import { openDialog, showError } from './dialogs.js';

const $ = (id) => document.getElementById(id);

/** "2 h 5 min", "59 s": the time left until `endsAt` (seconds since 1970). */
export function timeLeft(endsAt, now = Date.now() / 1000) {
  let left = Math.max(0, Math.ceil(endsAt - now));
  const days = Math.floor(left / 86400);
  if (days >= 2) return days + ' days';
  const hours = Math.floor(left / 3600);
  left -= hours * 3600;
  const minutes = Math.floor(left / 60);
  if (hours > 0) return hours + ' h ' + minutes + ' min';
  if (minutes > 0) return minutes + ' min ' + (left - minutes * 60) + ' s';
  return left + ' s';
}

/** What the viewer says of an item's end, or '' when it has none. */
export function endText(item, now = Date.now() / 1000) {
  const parts = [];
  if (item.viewsLeft === 0) {
    const latest = item.endsAt != null ? ', at the latest in ' + timeLeft(item.endsAt, now) : '';
    return 'Last view: deleted for good when you close it' + latest;
  } else if (item.viewsLeft != null) {
    parts.push(item.viewsLeft + (item.viewsLeft === 1 ? ' view' : ' views') + ' left after this one');
  }
  if (item.endsAt != null) parts.push('deleted for good in ' + timeLeft(item.endsAt, now));
  const text = parts.join(' · ');
  return text ? text[0].toUpperCase() + text.slice(1) : '';
}

/** Opens the end dialog for the items `ids`; `onSaved(updated)` gets them as they now stand. */
export function openEndDialog(ids, onSaved) {
  const dialog = $('end-dialog');
  const form = $('end-form');
  $('end-after').value = '';
  $('end-views').value = '';
  $('end-title').textContent = ids.length === 1 ? 'Give an end' : 'Give ' + ids.length + ' items an end';
  form.onsubmit = async (event) => {
    event.preventDefault();
    const after = $('end-after').value;
    const viewsText = $('end-views').value.trim();
    const views = viewsText === '' ? null : Number(viewsText);
    if (views !== null && !(Number.isInteger(views) && views >= 1 && views <= 1000)) {
      return showError($('end-error'), 'Views must be a whole number from 1 to 1000.');
    }
    try {
      const answer = await post('/api/items/end', { ids, in: after ? Number(after) : null, views });
      dialog.close('saved');
      onSaved(answer.items);
    } catch (failure) {
      showError($('end-error'), failure.message);
    }
  };
  openDialog(dialog);
  $('end-after').focus();
}

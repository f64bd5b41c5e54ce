// format.js: dates, durations and sizes as people read them, in their locale.

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const dayYearFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const shortDayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A local calendar day as one comparable number, yyyymmdd. */
export function dayKey(seconds) {
  const date = new Date(seconds * 1000);
  return date.getFullYear() * 10000 + (date.getMonth() + 1) * 100 + date.getDate();
}

/** "Today", "Yesterday", "Sat 14 Jul", or with the year when it is not this year. */
export function dayLabel(seconds) {
  const date = new Date(seconds * 1000);
  const now = new Date();
  const key = dayKey(seconds);
  if (key === dayKey(now.getTime() / 1000)) return 'Today';
  if (key === dayKey(now.getTime() / 1000 - 86400)) return 'Yesterday';
  return (date.getFullYear() === now.getFullYear() ? dayFormat : dayYearFormat).format(date);
}

/** "November 2026". */
export function monthLabel(seconds) {
  return monthFormat.format(new Date(seconds * 1000));
}

/** "Sat 14 Jul", "Today" or "Yesterday": a day label short enough to sit over a few tiles. */
export function shortDayLabel(seconds) {
  const label = dayLabel(seconds);
  return label === 'Today' || label === 'Yesterday' ? label : shortDayFormat.format(new Date(seconds * 1000));
}

export function dateTime(seconds) {
  return fullFormat.format(new Date(seconds * 1000));
}

export function duration(seconds) {
  if (seconds == null || !isFinite(seconds)) return '';
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? h + ':' + String(m).padStart(2, '0') + ':' + s : m + ':' + s;
}

export function bytes(n) {
  if (n == null) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return (unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)) + ' ' + units[unit];
}

export function count(n, one, many) {
  return n.toLocaleString() + ' ' + (n === 1 ? one : many);
}

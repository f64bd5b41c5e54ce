// grid.js: the timeline. Items flow, newest first, into rows of tiles that keep
// each photo's shape (a justified layout, as Google Photos and Immich draw it),
// under a heading per month, with a label over the first tile of each day: days
// share rows, so a week of one photo a day fits in one row, not seven. Rows are
// laid out by arithmetic from the loaded items; only rows within a screen of the
// viewport exist in the DOM, so only their thumbnails load and 100,000 items
// scroll like 100. The region not yet fetched is one skeleton block that asks the
// catalog for the next page when it comes into view.

import { urls } from './api.js';
import { captureDay, captureTime } from './catalog.js';
import { dateTime, dayLabel, duration, monthLabel, shortDayLabel } from './format.js';
import { icon } from './icons.js';

const GAP = 4; // between two tiles of one day
const DAY_GAP = 16; // between two days in one row
const MONTH_HEIGHT = 56;
const LABEL_HEIGHT = 34; // the band over a row in which a day starts
const OVERSCAN = 800;
// A panorama or a tall screenshot shows cropped to these shapes rather than as a sliver.
const MIN_ASPECT = 0.5;
const MAX_ASPECT = 2.5;
// A row that would have to shrink below this share of the target height to take one
// more tile leaves it for the next row and stretches instead (up to the other bound).
const SHRINK_LIMIT = 0.75;
const STRETCH_LIMIT = 1.35;
const SKELETON_ASPECT = 1.33;
// A touch held this long without moving more than the slop selects its tile.
const LONG_PRESS_MS = 450;
const LONG_PRESS_SLOP = 10;

/** Width over height as the tile shows it: EXIF orientations 5–8 turn a quarter. */
export function aspect(item) {
  let w = item.width;
  let h = item.height;
  if (!w || !h) return 1;
  if (item.orientation >= 5 && item.orientation <= 8) [w, h] = [h, w];
  return Math.min(MAX_ASPECT, Math.max(MIN_ASPECT, w / h));
}

/** The row height the layout aims at for a canvas `width` pixels wide. */
export function targetHeight(width) {
  return width < 560 ? 112 : width < 1000 ? 150 : 180;
}

export class Grid {
  constructor({ scroller, canvas, catalog, selection, onOpen, onError }) {
    this.scroller = scroller;
    this.canvas = canvas;
    this.catalog = catalog;
    this.selection = selection;
    this.onOpen = onOpen;
    this.onError = onError;
    this.rows = [];
    this.rendered = new Map();
    this.width = 0;
    this.epoch = 0;
    this.frame = 0;

    this.sticky = document.createElement('div');
    this.sticky.className = 'grid-sticky';
    this.sticky.setAttribute('aria-hidden', 'true');
    this.sticky.append(document.createElement('span'));
    this.sticky.hidden = true;
    canvas.before(this.sticky);

    scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.layout()).observe(scroller);
    catalog.addEventListener('change', () => this.layout());
    selection.addEventListener('change', () => this.paint());
    canvas.addEventListener('click', (event) => this.click(event));
    canvas.addEventListener('keydown', (event) => this.key(event));
    canvas.addEventListener('pointerdown', (event) => this.pressStart(event));
    canvas.addEventListener('pointermove', (event) => this.pressMove(event), { passive: true });
    canvas.addEventListener('pointerup', () => this.pressEnd());
    canvas.addEventListener('pointercancel', () => this.pressEnd(true));
    // A held finger brings up the system's image menu: the long press means "select" here.
    canvas.addEventListener('contextmenu', (event) => {
      if (event.target.closest('.tile') && (this.press || this.swallowClick)) event.preventDefault();
    });
  }

  /** Touch: a long press on a tile selects it; taps then add to the selection (click()). */
  pressStart(event) {
    this.swallowClick = false;
    if (event.pointerType !== 'touch' || !event.isPrimary) return;
    const tile = event.target.closest('.tile');
    if (!tile) return;
    const press = { x: event.clientX, y: event.clientY, fired: false };
    press.timer = setTimeout(() => {
      press.fired = true;
      const index = Number(tile.querySelector('.tile-open').dataset.index);
      const item = this.catalog.items[index];
      if (item && !this.selection.has(item.id)) this.selection.toggle(item.id, index);
      navigator.vibrate?.(10);
    }, LONG_PRESS_MS);
    this.press = press;
  }

  pressMove(event) {
    const press = this.press;
    if (!press || press.fired) return;
    if (Math.hypot(event.clientX - press.x, event.clientY - press.y) > LONG_PRESS_SLOP) this.pressEnd(true);
  }

  pressEnd(cancelled = false) {
    const press = this.press;
    if (!press) return;
    clearTimeout(press.timer);
    this.press = null;
    // The click that may follow the lifted finger belongs to the long press.
    this.swallowClick = press.fired && !cancelled;
  }

  /** Arrow keys move the focus from tile to tile, up and down to the tile below the same spot. */
  key(event) {
    const button = event.target.closest('.tile-open');
    if (!button || event.altKey || event.ctrlKey || event.metaKey) return;
    const index = Number(button.dataset.index);
    const k = this.rowOf(index);
    if (k < 0) return;
    const row = this.rows[k];
    const centre = row.xs[index - row.start] + row.ws[index - row.start] / 2;
    const rowNear = (step) => {
      for (let j = k + step; j >= 0 && j < this.rows.length; j += step) {
        if (this.rows[j].kind === 'tiles') return nearestIn(this.rows[j], centre);
      }
      return -1;
    };
    const target = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      ArrowDown: rowNear(1),
      ArrowUp: rowNear(-1),
      Home: 0,
    }[event.key];
    if (target === undefined) return;
    event.preventDefault();
    if (target < 0 || target >= this.catalog.items.length) return;
    this.reveal(target);
    this.focusTile(target);
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  /** Rebuilds the row model; keeps the first visible item in place across a resize. */
  layout() {
    const width = this.canvas.clientWidth;
    if (!width) return;
    const anchor = this.width ? this.firstVisibleIndex() : -1;
    const reflow = Math.abs(width - this.width) > 0.5;
    if (reflow || this.catalog.epoch !== this.epoch) this.clear();
    this.width = width;
    this.epoch = this.catalog.epoch;
    this.rows = buildRows(this.catalog, width, targetHeight(width));
    const last = this.rows[this.rows.length - 1];
    this.canvas.style.height = (last ? last.top + last.height : 0) + 'px';
    if (reflow && anchor > 0) this.reveal(anchor, 'start');
    this.render();
    this.paint();
  }

  /** Lays the grid out again if the list changed while it could not be (hidden behind
   * the viewer, where it has no width): a restore from the viewer, say. */
  catchUp() {
    if (this.catalog.epoch !== this.epoch) this.layout();
  }

  clear() {
    this.canvas.classList.remove('selecting');
    this.sticky.hidden = true;
    for (const element of this.rendered.values()) discard(element);
    this.rendered.clear();
  }

  render() {
    this.frame = 0;
    const offset = this.canvas.offsetTop;
    const top = this.scroller.scrollTop - offset - OVERSCAN;
    const bottom = this.scroller.scrollTop - offset + this.scroller.clientHeight + OVERSCAN;
    const wanted = new Set();
    let needMore = false;
    for (let k = this.rowAt(top); k < this.rows.length && this.rows[k].top < bottom; k++) {
      const row = this.rows[k];
      wanted.add(row.key);
      let element = this.rendered.get(row.key);
      if (!element) {
        element = this.build(row);
        this.rendered.set(row.key, element);
        this.canvas.append(element);
      }
      if (element.dataset.top !== String(row.top)) {
        element.dataset.top = String(row.top);
        element.style.transform = 'translateY(' + row.top + 'px)';
      }
      if (row.kind === 'pending') needMore = true;
    }
    for (const [key, element] of this.rendered) {
      if (!wanted.has(key)) {
        discard(element);
        this.rendered.delete(key);
      }
    }
    if (needMore) this.catalog.loadMore().catch((error) => this.onError(error));
    this.paintSticky();
  }

  /** Keeps the month of the topmost row on screen once its heading has scrolled away. */
  paintSticky() {
    const y = this.scroller.scrollTop - this.canvas.offsetTop;
    const row = this.rows[this.rowAt(y)];
    const heading = row && row.month !== undefined ? this.rows[row.month] : null;
    const show = !!heading && heading.top + MONTH_HEIGHT / 2 < y;
    this.sticky.hidden = !show;
    if (show) this.sticky.firstChild.textContent = heading.label;
  }

  /** Index of the first row whose bottom edge lies below y (binary search). */
  rowAt(y) {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const row = this.rows[mid];
      if (row.top + row.height <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the tile row holding item `index`, or -1 (binary search: rows run in item order). */
  rowOf(index) {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const row = this.rows[mid];
      const start = row.start ?? row.first;
      if (start === undefined || row.kind === 'pending') {
        hi = mid - 1;
      } else if (index < start) {
        hi = mid - 1;
      } else if (row.kind === 'tiles' && index < row.end) {
        return mid;
      } else {
        lo = mid + 1;
      }
    }
    return -1;
  }

  firstVisibleIndex() {
    const y = this.scroller.scrollTop - this.canvas.offsetTop;
    for (let k = this.rowAt(y); k < this.rows.length; k++) {
      if (this.rows[k].kind === 'tiles') return this.rows[k].start;
    }
    return -1;
  }

  /** Scrolls so that the item at `index` is on screen. */
  reveal(index, where = 'nearest') {
    const k = this.rowOf(index);
    if (k < 0) return;
    const row = this.rows[k];
    const offset = this.canvas.offsetTop;
    const viewTop = this.scroller.scrollTop;
    const viewBottom = viewTop + this.scroller.clientHeight;
    const rowTop = row.top + offset;
    const above = row.band ? 0 : LABEL_HEIGHT; // room for the sticky month
    if (where === 'start') this.scroller.scrollTop = rowTop - above;
    else if (rowTop + row.band < viewTop + LABEL_HEIGHT) this.scroller.scrollTop = rowTop - above;
    else if (rowTop + row.height > viewBottom) this.scroller.scrollTop = rowTop + row.height - this.scroller.clientHeight + GAP;
    this.render();
  }

  focusTile(index) {
    const button = this.canvas.querySelector('.tile-open[data-index="' + index + '"]');
    if (button) button.focus({ preventScroll: true });
  }

  build(row) {
    const element = document.createElement('div');
    element.className = 'grid-row grid-row-' + row.kind;
    element.style.height = row.height + 'px';
    if (row.kind === 'month') {
      const heading = document.createElement('h2');
      heading.className = 'grid-month';
      heading.textContent = row.label;
      element.append(heading);
      element.setAttribute('role', 'listitem'); // a heading may not sit in a list bare
    } else if (row.kind === 'tiles') {
      element.setAttribute('role', 'presentation');
      for (const label of row.labels) element.append(this.dayLabel(label));
      for (let i = row.start; i < row.end; i++) {
        const tile = this.tile(this.catalog.items[i], i);
        tile.style.left = row.xs[i - row.start] + 'px';
        tile.style.top = row.band + 'px';
        tile.style.width = row.ws[i - row.start] + 'px';
        tile.style.height = row.tileHeight + 'px';
        element.append(tile);
      }
    } else {
      element.setAttribute('aria-hidden', 'true');
      element.style.backgroundSize = row.cellWidth + 'px ' + row.cellHeight + 'px';
    }
    return element;
  }

  /** A day's label, over its first tile in a row: a button that selects the day. */
  dayLabel(label) {
    // An item of the list in its own right: a heading may not sit in a list bare.
    const holder = document.createElement('div');
    holder.className = 'grid-day';
    holder.setAttribute('role', 'listitem');
    holder.style.left = label.x + 'px';
    holder.style.maxWidth = label.width + 'px';
    const heading = document.createElement('h3');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'day-select';
    button.dataset.first = String(label.first);
    const time = captureTime(this.catalog.items[label.first]);
    button.setAttribute('aria-label', 'Select ' + dayLabel(time));
    button.title = dayLabel(time) + ': select the day';
    const text = document.createElement('span');
    text.className = 'day-text';
    text.textContent = shortDayLabel(time);
    button.append(icon('check', 'day-check'), text);
    heading.append(button);
    holder.append(heading);
    return holder;
  }

  tile(item, index) {
    const tile = document.createElement('div');
    tile.className = 'tile';
    tile.setAttribute('role', 'listitem');
    tile.dataset.id = item.id;
    tile.dataset.kind = item.kind;
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'tile-open';
    open.dataset.index = String(index);
    const role = item.companion?.role;
    const kind = item.kind === 'video' ? 'Video' : role === 'motion' ? 'Live Photo' : role === 'raw' ? 'Photo with RAW'
      : item.kind === 'photo' ? 'Photo' : item.kind === 'note' ? 'Note' : 'File';
    const ends = item.endsAt != null || item.viewsLeft != null;
    open.setAttribute('aria-label', kind + ' ' + item.name + ', ' + dateTime(captureTime(item)) + (ends ? ', with an end' : ''));
    if (item.hasThumbnail) {
      const img = document.createElement('img');
      img.className = 'thumb';
      img.alt = '';
      img.decoding = 'async';
      img.draggable = false;
      img.addEventListener('load', () => img.classList.add('loaded'), { once: true });
      img.addEventListener('error', () => tile.classList.add('broken'), { once: true });
      img.src = urls.thumbnail(item.id);
      open.append(img);
    } else {
      const placeholder = document.createElement('span');
      placeholder.className = 'tile-placeholder';
      placeholder.append(icon(item.kind === 'video' ? 'play' : item.kind === 'photo' ? 'image' : item.kind === 'note' ? 'note' : 'file'));
      const name = document.createElement('span');
      name.className = 'tile-name';
      name.textContent = item.name;
      placeholder.append(name);
      open.append(placeholder);
    }
    tile.append(open);
    if (item.kind === 'video') {
      const badge = document.createElement('span');
      badge.className = 'tile-badge';
      badge.append(icon('play'), document.createTextNode(duration(item.duration)));
      tile.append(badge);
    } else if (role) {
      const badge = document.createElement('span');
      badge.className = 'tile-badge tile-pair';
      badge.textContent = role === 'motion' ? 'Live' : 'RAW';
      tile.append(badge);
    }
    if (ends) {
      // Its end, at a glance: views left, or just the timer for an end in time.
      const badge = document.createElement('span');
      badge.className = 'tile-badge tile-end';
      badge.append(icon('timer'));
      if (item.viewsLeft != null) badge.append(document.createTextNode(String(item.viewsLeft)));
      tile.append(badge);
    }
    const heart = icon('heart', 'tile-fav');
    tile.append(heart);
    const check = document.createElement('button');
    check.type = 'button';
    check.className = 'tile-check';
    check.setAttribute('aria-label', 'Select ' + item.name);
    check.append(icon('check'));
    tile.append(check);
    this.paintTile(tile, item);
    return tile;
  }

  paintTile(tile, item) {
    const selected = this.selection.has(tile.dataset.id);
    tile.classList.toggle('selected', selected);
    tile.querySelector('.tile-check').setAttribute('aria-pressed', String(selected));
    if (item) tile.classList.toggle('favorite', !!item.favorite);
  }

  /** Refreshes selection marks and favourite hearts on the tiles and day labels in the DOM. */
  paint() {
    this.canvas.classList.toggle('selecting', this.selection.size > 0);
    for (const tile of this.canvas.querySelectorAll('.tile')) {
      const index = Number(tile.querySelector('.tile-open').dataset.index);
      this.paintTile(tile, this.catalog.items[index]);
    }
    for (const button of this.canvas.querySelectorAll('.day-select')) {
      const ids = this.dayIds(Number(button.dataset.first));
      button.setAttribute('aria-pressed', String(ids.length > 0 && ids.every((id) => this.selection.has(id))));
    }
  }

  /** The ids of the loaded items of the day that item `first` begins. */
  dayIds(first) {
    const items = this.catalog.items;
    if (!items[first]) return [];
    const day = captureDay(items[first]);
    const ids = [];
    for (let i = first; i < items.length && captureDay(items[i]) === day; i++) ids.push(items[i].id);
    return ids;
  }

  click(event) {
    if (this.swallowClick) {
      this.swallowClick = false;
      return;
    }
    const day = event.target.closest('.day-select');
    if (day) {
      const ids = this.dayIds(Number(day.dataset.first));
      this.selection.setAll(ids, !ids.every((id) => this.selection.has(id)));
      return;
    }
    const check = event.target.closest('.tile-check');
    const open = event.target.closest('.tile-open');
    const button = check ? check.parentElement.querySelector('.tile-open') : open;
    if (!button) return;
    const index = Number(button.dataset.index);
    const item = this.catalog.items[index];
    if (!item) return;
    if (event.shiftKey && this.selection.size > 0) {
      this.selection.extendTo(index, this.catalog.items);
    } else if (check || event.ctrlKey || event.metaKey || this.selection.size > 0) {
      this.selection.toggle(item.id, index);
    } else {
      this.onOpen(index);
    }
  }
}

/** The tile in `row` whose middle lies nearest to `x`. */
function nearestIn(row, x) {
  let best = row.start;
  let distance = Infinity;
  for (let i = row.start; i < row.end; i++) {
    const d = Math.abs(row.xs[i - row.start] + row.ws[i - row.start] / 2 - x);
    if (d < distance) {
      distance = d;
      best = i;
    }
  }
  return best;
}

const monthOf = (item) => Math.floor(captureDay(item) / 100);
const yearOf = (item) => Math.floor(captureDay(item) / 10000);

/**
 * The row model: per month a heading row, then justified rows of its items; a
 * skeleton for what is not fetched. A row takes tiles at the target height until
 * they fill the width, then shrinks to fit exactly (or, rather than shrink a lot for
 * one more tile, leaves it and stretches); a month's last row keeps the target
 * height and does not stretch.
 *
 * A search's hits are grouped by year instead (issue 40 point 20): a few hits spread
 * over many months would otherwise take a heading and a short row each, screens of
 * scrolling for a handful of photos. Day labels still say where each day begins.
 */
function buildRows(catalog, width, target) {
  const items = catalog.items;
  const groupOf = catalog.searching ? yearOf : monthOf;
  const rows = [];
  let top = 0;
  let i = 0;
  while (i < items.length) {
    const group = groupOf(items[i]);
    const heading = rows.length;
    rows.push({
      kind: 'month', key: 'm' + i + ':' + group, top, height: MONTH_HEIGHT, first: i,
      label: catalog.searching ? String(new Date(captureTime(items[i]) * 1000).getFullYear()) : monthLabel(captureTime(items[i])),
      month: heading,
    });
    top += MONTH_HEIGHT;
    let j = i;
    while (j < items.length && groupOf(items[j]) === group) j++;
    let start = i;
    while (start < j) {
      const row = justify(items, start, j, width, target, i);
      row.top = top;
      row.month = heading;
      row.key = 'r' + start + '-' + row.end + ':' + row.tileHeight.toFixed(1) + ':' + row.band;
      rows.push(row);
      top += row.height;
      start = row.end;
    }
    i = j;
  }
  if (!catalog.done) {
    const missing = Math.max(catalog.total - items.length, 1);
    const cellWidth = target * SKELETON_ASPECT + GAP;
    const cellHeight = target + GAP;
    const perRow = Math.max(1, Math.floor((width + GAP) / cellWidth));
    const height = Math.ceil(missing / perRow) * cellHeight + (items.length ? 0 : MONTH_HEIGHT);
    rows.push({ kind: 'pending', key: 'pending@' + top, top, height, cellWidth, cellHeight });
  }
  return rows;
}

/** One justified row from `start`, within the month [monthStart, end). */
function justify(items, start, end, width, target, monthStart) {
  const gapBefore = (k) => (k === start ? 0 : captureDay(items[k]) !== captureDay(items[k - 1]) ? DAY_GAP : GAP);
  let sum = 0;
  let gaps = 0;
  let stop = start;
  while (stop < end && sum * target + gaps < width) {
    const gap = gapBefore(stop);
    const a = aspect(items[stop]);
    // Taking this tile would shrink the row a lot: leave it for the next row if the
    // tiles so far can stretch to the width instead.
    const taken = (width - gaps - gap) / (sum + a);
    const without = (width - gaps) / sum;
    if (stop > start && taken < target * SHRINK_LIMIT && without <= target * STRETCH_LIMIT) break;
    sum += a;
    gaps += gap;
    stop += 1;
  }
  const full = sum * target + gaps >= width || stop < end;
  const height = full ? (width - gaps) / sum : target;
  const xs = [];
  const ws = [];
  const labels = [];
  let x = 0;
  for (let k = start; k < stop; k++) {
    x += gapBefore(k);
    const w = aspect(items[k]) * height;
    // A label where a day begins (a month always begins with one).
    if (k === monthStart || captureDay(items[k]) !== captureDay(items[k - 1])) labels.push({ x, first: k });
    xs.push(x);
    ws.push(w);
    x += w;
  }
  // Rounding leaves the last tile of a full row a fraction short or over: it takes the rest.
  if (full && ws.length) ws[ws.length - 1] = Math.max(1, width - xs[xs.length - 1]);
  for (let n = 0; n < labels.length; n++) {
    const next = n + 1 < labels.length ? labels[n + 1].x - DAY_GAP / 2 : width;
    labels[n].width = Math.max(24, next - labels[n].x);
  }
  const band = labels.length ? LABEL_HEIGHT : 0;
  return { kind: 'tiles', start, end: stop, xs, ws, labels, band, tileHeight: height, height: band + height + GAP };
}

/** Removes a row, first cancelling thumbnails still on their way. */
function discard(element) {
  for (const img of element.querySelectorAll('img')) {
    if (!img.complete) img.removeAttribute('src');
  }
  element.remove();
}

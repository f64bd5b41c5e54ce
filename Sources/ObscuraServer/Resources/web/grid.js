// grid.js: the photo grid. Day headings and rows of tiles are laid out by
// arithmetic from the loaded items; only rows within a screen of the viewport
// exist in the DOM, so only their thumbnails load and 100,000 items scroll
// like 100. The region not yet fetched is one skeleton block that asks the
// catalog for the next page when it comes into view.

import { urls } from './api.js';
import { captureDay, captureTime } from './catalog.js';
import { dayLabel, duration, dateTime } from './format.js';
import { icon } from './icons.js';

const GAP = 4;
const HEADER_HEIGHT = 52;
const OVERSCAN = 800;

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
    this.cols = 0;
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
  }

  /** Arrow keys move the focus from tile to tile, row by row as the eye sees them. */
  key(event) {
    const button = event.target.closest('.tile-open');
    if (!button || event.altKey || event.ctrlKey || event.metaKey) return;
    const index = Number(button.dataset.index);
    const k = this.rows.findIndex((r) => r.kind === 'tiles' && index >= r.start && index < r.end);
    if (k < 0) return;
    const column = index - this.rows[k].start;
    const rowNear = (step) => {
      for (let j = k + step; j >= 0 && j < this.rows.length; j += step) {
        const row = this.rows[j];
        if (row.kind === 'tiles') return Math.min(row.start + column, row.end - 1);
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
    const anchor = this.cols ? this.firstVisibleIndex() : -1;
    const target = width < 560 ? 104 : width < 1000 ? 144 : 168;
    const cols = Math.max(3, Math.floor((width + GAP) / (target + GAP)));
    const cell = (width - GAP * (cols - 1)) / cols;
    const reflow = cols !== this.cols || Math.abs(cell - this.cell) > 0.5;
    if (reflow || this.catalog.epoch !== this.epoch) this.clear();
    this.cols = cols;
    this.cell = cell;
    this.width = width;
    this.epoch = this.catalog.epoch;
    this.rows = buildRows(this.catalog, cols, cell + GAP);
    const last = this.rows[this.rows.length - 1];
    this.canvas.style.height = (last ? last.top + last.height : 0) + 'px';
    this.canvas.style.setProperty('--cell', cell + 'px');
    if (reflow && anchor > 0) this.reveal(anchor, 'start');
    this.render();
    this.paint();
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

  /** Keeps the day of the topmost row on screen once its heading has scrolled away. */
  paintSticky() {
    const y = this.scroller.scrollTop - this.canvas.offsetTop;
    const row = this.rows[this.rowAt(y)];
    const header = row && row.header !== undefined ? this.rows[row.header] : null;
    const show = !!header && header.top + HEADER_HEIGHT / 2 < y;
    this.sticky.hidden = !show;
    if (show) this.sticky.firstChild.textContent = header.label;
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

  firstVisibleIndex() {
    const y = this.scroller.scrollTop - this.canvas.offsetTop;
    for (let k = this.rowAt(y); k < this.rows.length; k++) {
      if (this.rows[k].kind === 'tiles') return this.rows[k].start;
    }
    return -1;
  }

  /** Scrolls so that the item at `index` is on screen. */
  reveal(index, where = 'nearest') {
    const row = this.rows.find((r) => r.kind === 'tiles' && index >= r.start && index < r.end);
    if (!row) return;
    const offset = this.canvas.offsetTop;
    const viewTop = this.scroller.scrollTop;
    const viewBottom = viewTop + this.scroller.clientHeight;
    const rowTop = row.top + offset;
    if (where === 'start') this.scroller.scrollTop = rowTop - HEADER_HEIGHT;
    else if (rowTop < viewTop) this.scroller.scrollTop = rowTop - HEADER_HEIGHT;
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
    if (row.kind === 'header') {
      const heading = document.createElement('h2');
      heading.className = 'grid-day';
      heading.textContent = row.label;
      element.append(heading);
      element.setAttribute('role', 'presentation');
    } else if (row.kind === 'tiles') {
      element.setAttribute('role', 'presentation');
      element.style.gridTemplateColumns = 'repeat(' + this.cols + ', 1fr)';
      for (let i = row.start; i < row.end; i++) element.append(this.tile(this.catalog.items[i], i));
    } else {
      element.setAttribute('aria-hidden', 'true');
      element.style.backgroundSize = (this.cell + GAP) + 'px ' + (this.cell + GAP) + 'px';
    }
    return element;
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
    const kind = item.kind === 'video' ? 'Video' : item.kind === 'photo' ? 'Photo' : 'File';
    open.setAttribute('aria-label', kind + ' ' + item.name + ', ' + dateTime(captureTime(item)));
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
      placeholder.append(icon(item.kind === 'video' ? 'play' : item.kind === 'photo' ? 'image' : 'file'));
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

  /** Refreshes selection marks and favourite hearts on the tiles in the DOM. */
  paint() {
    this.canvas.classList.toggle('selecting', this.selection.size > 0);
    for (const tile of this.canvas.querySelectorAll('.tile')) {
      const index = Number(tile.querySelector('.tile-open').dataset.index);
      this.paintTile(tile, this.catalog.items[index]);
    }
  }

  click(event) {
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

/** The row model: a heading per local day, then rows of `cols` tiles; a skeleton for what is not fetched. */
function buildRows(catalog, cols, rowHeight) {
  const items = catalog.items;
  const rows = [];
  let top = 0;
  let i = 0;
  while (i < items.length) {
    const day = captureDay(items[i]);
    const header = rows.length;
    rows.push({ kind: 'header', key: 'h' + i + ':' + day, top, height: HEADER_HEIGHT, label: dayLabel(captureTime(items[i])), header });
    top += HEADER_HEIGHT;
    let j = i + 1;
    while (j < items.length && captureDay(items[j]) === day) j++;
    for (let start = i; start < j; start += cols) {
      const end = Math.min(start + cols, j);
      rows.push({ kind: 'tiles', key: 'r' + start + '-' + end, top, height: rowHeight, start, end, header });
      top += rowHeight;
    }
    i = j;
  }
  if (!catalog.done) {
    const missing = Math.max(catalog.total - items.length, cols);
    const height = Math.ceil(missing / cols) * rowHeight + (items.length ? 0 : HEADER_HEIGHT);
    rows.push({ kind: 'pending', key: 'pending@' + top, top, height });
  }
  return rows;
}

/** Removes a row, first cancelling thumbnails still on their way. */
function discard(element) {
  for (const img of element.querySelectorAll('img')) {
    if (!img.complete) img.removeAttribute('src');
  }
  element.remove();
}

// scrubber.js: the date scrubber beside the grid (issue 17): a rail of years and
// months, each placed where its items sit in the timeline, to jump to a year and
// month as Google Photos and Immich do. Jumping loads the pages up to that month
// (the grid lays out what is loaded), then shows its heading.

import { get } from './api.js';
import { toast } from './dialogs.js';

const $ = (id) => document.getElementById(id);
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December'];

export class Scrubber {
  constructor({ catalog, grid, onError }) {
    this.catalog = catalog;
    this.grid = grid;
    this.onError = onError;
    this.months = [];
    this.ticket = 0;
    this.key = '';
    this.rail = $('scrubber');
    catalog.addEventListener('change', () => this.refresh());
  }

  /** Asks for the months of the set on show when that set changed; hidden during a search and in the trash. */
  refresh() {
    const filter = this.catalog.filter;
    const hidden = this.catalog.searching || filter.view === 'trash' || !this.catalog.loaded;
    const key = hidden ? '' : JSON.stringify(filter) + ':' + this.catalog.generation;
    if (key === this.key) return;
    this.key = key;
    const ticket = ++this.ticket;
    if (hidden) return this.render([]);
    const query = new URLSearchParams();
    if (filter.view === 'favorites') query.set('favorites', '1');
    if (filter.view === 'folder') query.set('folder', filter.folderId);
    get('/api/items/months?' + query.toString())
      .then(({ months }) => ticket === this.ticket && this.render(months))
      .catch((error) => ticket === this.ticket && this.onError(error));
  }

  render(months) {
    this.months = months;
    const total = months.reduce((sum, m) => sum + m.count, 0);
    const years = new Set(months.map((m) => m.month.slice(0, 4)));
    this.rail.replaceChildren();
    this.rail.hidden = months.length < 2;
    if (this.rail.hidden) return;
    let before = 0;
    let year = '';
    for (const { month, count } of months) {
      const top = (100 * before) / total;
      const [y, m] = month.split('-');
      const label = MONTHS[Number(m) - 1] + ' ' + y;
      const first = before;
      const jump = () => this.jump(first, label);
      if (y !== year) {
        year = y;
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'scrub-year';
        button.textContent = y;
        button.style.top = top + '%';
        button.setAttribute('aria-label', 'Jump to ' + label);
        button.addEventListener('click', jump);
        this.rail.append(button);
      } else if (years.size < 40) {
        const tick = document.createElement('button');
        tick.type = 'button';
        tick.className = 'scrub-month';
        tick.style.top = top + '%';
        tick.title = label;
        tick.setAttribute('aria-label', 'Jump to ' + label);
        tick.addEventListener('click', jump);
        this.rail.append(tick);
      }
      before += count;
    }
    this.spread();
  }

  /** Moves year labels apart where their months are too close for them to be read
   * (a year of few photos between two of many), keeping their order and the rail. */
  spread() {
    const height = this.rail.clientHeight;
    const years = [...this.rail.querySelectorAll('.scrub-year')];
    if (!height || !years.length) return;
    const gap = years[0].offsetHeight + 2;
    const tops = years.map((b) => (parseFloat(b.style.top) / 100) * height);
    for (let i = 1; i < tops.length; i++) tops[i] = Math.max(tops[i], tops[i - 1] + gap);
    tops[tops.length - 1] = Math.min(tops[tops.length - 1], height - gap);
    for (let i = tops.length - 2; i >= 0; i--) tops[i] = Math.min(tops[i], tops[i + 1] - gap);
    years.forEach((b, i) => { b.style.top = Math.max(0, tops[i]) + 'px'; });
  }

  /** Loads the pages up to item `index` (the first of its month), then shows its month. */
  async jump(index, label) {
    const generation = this.catalog.generation;
    if (index >= this.catalog.items.length) toast('Going to ' + label + '…');
    try {
      await this.catalog.ensure(index);
    } catch (error) {
      return this.onError(error);
    }
    if (generation !== this.catalog.generation || index >= this.catalog.items.length) return;
    // Its first row at the top, under the sticky label that then names its month.
    this.grid.reveal(index, 'start');
  }
}

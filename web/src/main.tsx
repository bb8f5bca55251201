// Entry: styles and the app mounted into #app (index.html has no inline code; CSP forbids it).
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);

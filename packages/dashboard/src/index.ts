export { dashboardPlugin, DASHBOARD_PUBLIC_DIR } from './dashboard-plugin.js';

import { createApp } from 'vue'
import App from './App.vue'
import { initLocale } from './i18n.js'
import './styles.css'

initLocale()
createApp(App).mount('#app')

document.querySelectorAll('table.sortable').forEach(function(t){
t.querySelectorAll('thead th').forEach(function(th,i){th.addEventListener('click',function(){
var b=t.tBodies[0],r=Array.prototype.slice.call(b.rows),d=th.getAttribute('data-dir')==='d'?1:-1;
t.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('data-dir');});
th.setAttribute('data-dir',d>0?'a':'d');
function k(c){var v=c.getAttribute('data-v');return v===null?null:(v===''?-Infinity:+v);}
r.sort(function(x,y){var p=k(x.cells[i]),q=k(y.cells[i]);
if(p!==null&&q!==null)return d*(p<q?-1:p>q?1:0);
return d*x.cells[i].textContent.localeCompare(y.cells[i].textContent);});
r.forEach(function(x){b.appendChild(x);});});});});

# latency.gp: rendered by attnlab-report from run.json of run 5/20261126T054935Z-4efb23e-3.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot latency.gp (reads latency.dat, writes latency.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'latency.png'
set multiplot layout 1,2 title 'Phase 5 run 20261126T054935Z-4efb23e-3: time per launch (boxes; every sample where fewer than 10)' noenhanced
set style fill solid 0.35 border -1
set boxwidth 0.5
unset key
set grid ytics lc rgb '#dddddd'
set offsets 0,0,graph 0.05,graph 0.05

set title 'throughput 16x16x2048x64' noenhanced
set ylabel 'time per launch [us]'
unset logscale y
set autoscale y
set ytics autofreq
set format y '%.0f'
set xtics ('cold' 1, 'warm' 2, 'graph' 3)
set xrange [0.4:3.6]
plot 'latency.dat' index 0 using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '#1f77b4', \
     'latency.dat' index 0 using 1:6:6:6:6 with candlesticks lc rgb '#000000', \
     'latency.dat' index 1 using 1:2 with points pt 7 ps 0.35 lc rgb '#1f77b4', \
     'latency.dat' index 2 using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '#ff7f0e', \
     'latency.dat' index 2 using 1:6:6:6:6 with candlesticks lc rgb '#000000', \
     'latency.dat' index 3 using 1:2 with points pt 7 ps 0.35 lc rgb '#ff7f0e', \
     'latency.dat' index 4 using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '#2ca02c', \
     'latency.dat' index 4 using 1:6:6:6:6 with candlesticks lc rgb '#000000', \
     'latency.dat' index 5 using 1:2 with points pt 7 ps 0.35 lc rgb '#2ca02c'

set title 'latency 1x8x512x64' noenhanced
set ylabel 'time per launch [us]'
unset logscale y
set autoscale y
set ytics autofreq
set format y '%.1f'
set xtics ('cold' 1, 'warm' 2, 'graph' 3)
set xrange [0.4:3.6]
plot 'latency.dat' index 6 using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '#1f77b4', \
     'latency.dat' index 6 using 1:6:6:6:6 with candlesticks lc rgb '#000000', \
     'latency.dat' index 7 using 1:2 with points pt 7 ps 0.35 lc rgb '#1f77b4', \
     'latency.dat' index 8 using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '#ff7f0e', \
     'latency.dat' index 8 using 1:6:6:6:6 with candlesticks lc rgb '#000000', \
     'latency.dat' index 9 using 1:2 with points pt 7 ps 0.35 lc rgb '#ff7f0e', \
     'latency.dat' index 10 using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '#2ca02c', \
     'latency.dat' index 10 using 1:6:6:6:6 with candlesticks lc rgb '#000000'
unset multiplot
